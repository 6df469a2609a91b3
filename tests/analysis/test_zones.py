"""Privilege zone membership computed by analysis, against an expansion written here from §3's words.

The independent expansion reads the whole graph into memory and applies reference/behaviour.md §3
naively (no batching, no SQL): the enabled default Tier Zero selectors as Python predicates, children
to a fixed point, then parents of the seeds and children.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from houndgraph.analysis import run_analysis
from houndgraph.analysis.context import Context
from houndgraph.analysis.zones import tag_zones
from houndgraph.analysis.zones.model import Certification, NodeSource
from houndgraph.graph.kinds import TIER_ZERO_TAG, ADEdge, ADNode, AZEdge, AZNode
from houndgraph.graph.store import GraphStore
from houndgraph.ingest import expand_upload, read_file
from tests.analysis.graphs import SEEN, Graph
from tests.conftest import DATA

TIER_ZERO_GROUP_SUFFIXES = ("-512", "-519", "-518", "S-1-5-32-544", "S-1-5-32-551", "-516", "-1-5-9", "-526", "-527")
TIER_ZERO_ROLES = ("62E90394-69F5-4237-9190-012177145E10@", "E8611AB8-C189-46E8-94E1-60213AB1F814@",
                   "7BE44C8A-ADAF-4E2A-84D6-AB2649E08A13@", "E00E864A-17C5-4A4B-9C06-F5B95A8D5BD8@")


@dataclass
class Snapshot:
    kinds: dict[int, set[str]]
    props: dict[int, dict[str, Any]]
    edges: list[tuple[int, str, int]]

    @classmethod
    def read(cls, conn: psycopg.Connection) -> Snapshot:
        names = dict(conn.execute("SELECT id, name FROM kind").fetchall())
        kinds, props = {}, {}
        for node, kind_ids, properties in conn.execute("SELECT id, kind_ids, properties FROM node"):
            kinds[node] = {names[k] for k in kind_ids}
            props[node] = properties
        edges = [(s, names[k], e) for s, k, e in conn.execute("SELECT start_id, kind_id, end_id FROM edge")]
        return cls(kinds, props, edges)

    def of(self, kind: str, test: Callable[[dict[str, Any]], bool] = lambda p: True) -> set[int]:
        return {n for n, k in self.kinds.items() if kind in k and test(self.props[n])}

    def tier_zero_seeds(self) -> set[int]:
        oid: Callable[[dict[str, Any]], str] = lambda p: str(p.get("objectid", ""))  # noqa: E731
        seeds = self.of(ADNode.Domain) | self.of(AZNode.Tenant)
        seeds |= self.of(ADNode.Group, lambda p: oid(p).endswith(TIER_ZERO_GROUP_SUFFIXES))
        seeds |= self.of(ADNode.User, lambda p: oid(p).endswith("-500"))
        seeds |= self.of(AZNode.Role, lambda p: oid(p).startswith(TIER_ZERO_ROLES))
        domain_dns = {str(p.get("distinguishedname")) for p in (self.props[d] for d in self.of(ADNode.Domain))}
        seeds |= self.of(ADNode.Container, lambda p: any(
            p.get("distinguishedname") == "CN=ADMINSDHOLDER,CN=SYSTEM," + dn for dn in domain_dns))
        return seeds

    def children(self, nodes: set[int]) -> set[int]:
        rules = [(ADEdge.MemberOf, {ADNode.Group}, True), (ADEdge.Contains, {ADNode.OU, ADNode.Container}, False),
                 (AZEdge.MemberOf, {AZNode.Group}, True),
                 (AZEdge.Contains, {AZNode.ResourceGroup, AZNode.ManagementGroup, AZNode.Subscription}, False),
                 (AZEdge.HasRole, {AZNode.Role}, True), (AZEdge.RoleEligible, {AZNode.Role}, True)]
        found = set(nodes)
        while True:
            new = set()
            for start, kind, end in self.edges:
                for edge, anchors, inbound in rules:
                    anchor, other = (end, start) if inbound else (start, end)
                    if kind == edge and anchor in found and self.kinds[anchor] & anchors and other not in found:
                        new.add(other)
            if not new:
                return found - nodes
            found |= new

    def above(self, node: int, edge: str) -> set[int]:
        up, frontier = set(), {node}
        while frontier:
            frontier = {s for s, k, e in self.edges if k == edge and e in frontier} - up
            up |= frontier
        return up

    def parents(self, nodes: set[int]) -> set[int]:
        found: set[int] = set()
        linked: set[int] = set()
        for node in nodes:
            for parent in self.above(node, ADEdge.Contains):
                kinds = self.kinds[parent]
                unprotected = self.props[node].get("isaclprotected") is not True
                if ADNode.OU in kinds or (ADNode.Container in kinds and unprotected):
                    found.add(parent)
                if kinds & {ADNode.OU, ADNode.Domain}:
                    linked.add(parent)
            found |= {p for p in self.above(node, AZEdge.Contains)
                      if self.kinds[p] & {AZNode.Subscription, AZNode.ResourceGroup, AZNode.ManagementGroup}}
            if AZNode.ServicePrincipal in self.kinds[node]:
                found |= {s for s, k, e in self.edges if k == AZEdge.RunsAs and e == node}
        found |= {s for s, k, e in self.edges if k == ADEdge.GPLink and e in linked}
        return found - nodes

    def tier_zero(self) -> set[int]:
        seeds = self.tier_zero_seeds()
        below = seeds | self.children(seeds)
        return below | self.parents(below)


def tagged(conn: psycopg.Connection, kind: str = TIER_ZERO_TAG) -> set[int]:
    return {row[0] for row in conn.execute(
        "SELECT n.id FROM node n JOIN kind k ON k.id = ANY(n.kind_ids) WHERE k.name = %s", (kind,))}


def ingest(conn: psycopg.Connection, files: Iterable[Any]) -> None:
    store = GraphStore(conn)
    for file in files:
        for batch in read_file(file):
            store.write(batch, seen_at=SEEN)


def _files(*paths: Path) -> list[Any]:
    return [file for path in paths for file in expand_upload(path, max_unzipped_bytes=1 << 30, max_ratio=1000)]


LABS = {
    "v6-adcs-lab": lambda: _files(DATA / "sharphound" / "v6-adcs-lab" / "adcs.zip"),
    "v6-testlab": lambda: _files(*sorted((DATA / "sharphound" / "v6-testlab").glob("*.json"))),
}


@pytest.mark.parametrize("lab", sorted(LABS))
def test_tier_zero_of_a_lab_equals_the_rules_of_section_3(graph: Graph, lab: str) -> None:
    ingest(graph.conn, LABS[lab]())
    report = run_analysis(graph.conn)
    expected = Snapshot.read(graph.conn).tier_zero()
    assert len(expected) > 10
    assert tagged(graph.conn) == expected
    assert report.zones is not None and report.zones.members["Tier Zero"] == len(expected)
    # Every member is stored with why it was selected; the seeds are the seeds.
    rows = graph.conn.execute(
        "SELECT DISTINCT ON (node_id) node_id, source FROM asset_group_tag_selector_nodes sn "
        "JOIN asset_group_tag_selectors s ON s.id = sn.selector_id "
        "JOIN asset_group_tags t ON t.id = s.asset_group_tag_id "
        "WHERE t.name = 'Tier Zero' ORDER BY node_id, source").fetchall()
    assert {node for node, _ in rows} == expected
    seeds = Snapshot.read(graph.conn).tier_zero_seeds()
    assert {node for node, source in rows if source == NodeSource.SEED} == seeds


def test_tier_zero_nodes_carry_the_legacy_system_tag(graph: Graph) -> None:
    ingest(graph.conn, LABS["v6-adcs-lab"]())
    run_analysis(graph.conn)
    legacy = {row[0] for row in graph.conn.execute(
        "SELECT id FROM node WHERE 'admin_tier_0' = ANY(string_to_array(properties->>'system_tags', ' '))")}
    assert legacy == tagged(graph.conn)


def _selector(conn: psycopg.Connection, tag: str, name: str, *seeds: tuple[int, str], auto_certify: int = 0) -> int:
    (selector,) = conn.execute(
        "INSERT INTO asset_group_tag_selectors (asset_group_tag_id, name, auto_certify) "
        "SELECT id, %s, %s FROM asset_group_tags WHERE name = %s RETURNING id", (name, auto_certify, tag)).fetchone()
    for seed_type, value in seeds:
        conn.execute("INSERT INTO asset_group_tag_selector_seeds (selector_id, type, value) VALUES (%s, %s, %s)",
                     (selector, seed_type, value))
    return selector


def _small_domain(graph: Graph) -> None:
    graph.node("D", ADNode.Domain, objectid="S-1-5-21-9", distinguishedname="DC=D")
    graph.node("OU", ADNode.OU, objectid="OU-1")
    graph.node("Inner", ADNode.OU, objectid="OU-2")
    graph.node("GPO", ADNode.GPO, objectid="GPO-1")
    graph.node("Ops", ADNode.Group, objectid="S-1-5-21-9-1200")
    graph.node("Nested", ADNode.Group, objectid="S-1-5-21-9-1201")
    graph.node("ann", ADNode.User, objectid="S-1-5-21-9-1300")
    graph.node("bob", ADNode.User, objectid="S-1-5-21-9-1301", isaclprotected=True)
    graph.node("PC", ADNode.Computer, objectid="S-1-5-21-9-1400")
    graph.edges(ADEdge.Contains, [("D", "OU"), ("OU", "Inner"), ("Inner", "PC"), ("OU", "ann")])
    graph.edge("GPO", ADEdge.GPLink, "OU")
    graph.edges(ADEdge.MemberOf, [("Nested", "Ops"), ("ann", "Nested"), ("bob", "Ops")])
    graph.load()


def test_labels_take_children_and_owned_takes_only_its_seeds(graph: Graph) -> None:
    _small_domain(graph)
    conn = graph.conn
    conn.execute("INSERT INTO asset_group_tags (type, name, position) VALUES (2, 'Ops Label', NULL)")
    _selector(conn, "Ops Label", "ops", (1, "S-1-5-21-9-1200"))
    _selector(conn, "Owned", "mine", (1, "S-1-5-21-9-1200"), (1, "unknown-id"))
    tag_zones(Context(conn, SEEN))
    names = lambda ids: {graph_name(conn, i) for i in ids}  # noqa: E731
    assert names(tagged(conn, "Tag_Ops_Label")) == {"Ops", "Nested", "ann", "bob"}
    assert names(tagged(conn, "Tag_Owned")) == {"Ops"}


def test_zone_parents_skip_containers_of_protected_nodes_and_a_node_belongs_to_one_zone(graph: Graph) -> None:
    _small_domain(graph)
    conn = graph.conn
    conn.execute("INSERT INTO asset_group_tags (type, name, position) VALUES (1, 'Tier One', 2)")
    _selector(conn, "Tier One", "pc", (1, "S-1-5-21-9-1400"))
    _selector(conn, "Tier One", "the domain too", (2, "MATCH (n:Domain) RETURN n"))
    tag_zones(Context(conn, SEEN))
    names = lambda ids: {graph_name(conn, i) for i in ids}  # noqa: E731
    # The PC's parents: both OUs and the GPO linked to the outer one; the domain is Tier Zero's.
    assert names(tagged(conn, "Tag_Tier_One")) == {"PC", "Inner", "OU", "GPO"}
    assert "D" in names(tagged(conn))


def test_require_certify_tags_only_certified_members_and_certification_survives(graph: Graph) -> None:
    _small_domain(graph)
    conn = graph.conn
    conn.execute("INSERT INTO asset_group_tags (type, name, position, require_certify) "
                 "VALUES (1, 'Certified Zone', 2, true)")
    selector = _selector(conn, "Certified Zone", "ops", (1, "S-1-5-21-9-1200"), auto_certify=2)
    context = Context(conn, SEEN)
    tag_zones(context)
    names = lambda ids: {graph_name(conn, i) for i in ids}  # noqa: E731
    assert names(tagged(conn, "Tag_Certified_Zone")) == {"Ops"}  # seeds only are certified automatically
    ann = graph_id(conn, "S-1-5-21-9-1300")
    conn.execute("UPDATE asset_group_tag_selector_nodes SET certified = %s, certified_by = 'someone' "
                 "WHERE selector_id = %s AND node_id = %s", (Certification.MANUAL, selector, ann))
    tag_zones(context)
    assert names(tagged(conn, "Tag_Certified_Zone")) == {"Ops", "ann"}
    assert conn.execute("SELECT certified, certified_by FROM asset_group_tag_selector_nodes "
                        "WHERE selector_id = %s AND node_id = %s", (selector, ann)).fetchone() == (2, "someone")


def graph_name(conn: psycopg.Connection, node: int) -> str:
    return conn.execute("SELECT properties->>'name' FROM node WHERE id = %s", (node,)).fetchone()[0]


def graph_id(conn: psycopg.Connection, objectid: str) -> int:
    return conn.execute("SELECT id FROM node WHERE properties->>'objectid' = %s", (objectid,)).fetchone()[0]
