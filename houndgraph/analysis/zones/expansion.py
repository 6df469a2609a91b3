"""From seeds to a selector's nodes: children, then parents (reference/behaviour.md §3).

Children, repeated until nothing new appears: the transitive members of an AD Group (MemberOf) or an
AZGroup (AZMemberOf), everything an OU or Container contains (Contains), everything a resource group,
management group or subscription contains (AZContains), and the principals holding or eligible for an
AZRole (one AZHasRole / AZRoleEligible hop; a holding group then brings its members).
Parents, of the seeds and children: the OUs above a node (Contains walked up), the Containers above it
unless the node's ACL is protected (`isaclprotected`), the GPOs linked to those OUs or to the domain
above them; Azure subscriptions, resource groups and management groups above a node (AZContains), and
the AZApp a service principal runs as. Parents are not expanded further.

Each step is one batched query per level of the walk, so the cost follows the size of the result,
not of the graph.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import psycopg

from houndgraph.analysis.zones.model import Expansion, NodeSource
from houndgraph.graph.kinds import ADEdge, ADNode, AZEdge, AZNode


@dataclass(frozen=True, slots=True)
class Step:
    """From an anchor node carrying one of `anchors` along `edge` to a neighbour."""

    edge: str
    anchors: tuple[str, ...]
    # True: the neighbour is the edge's start (anchor <- neighbour); False: its end (anchor -> neighbour).
    inbound: bool


CHILD_STEPS = (
    Step(ADEdge.MemberOf, (ADNode.Group,), inbound=True),
    Step(ADEdge.Contains, (ADNode.OU, ADNode.Container), inbound=False),
    Step(AZEdge.MemberOf, (AZNode.Group,), inbound=True),
    Step(AZEdge.Contains, (AZNode.ResourceGroup, AZNode.ManagementGroup, AZNode.Subscription), inbound=False),
    Step(AZEdge.HasRole, (AZNode.Role,), inbound=True),
    Step(AZEdge.RoleEligible, (AZNode.Role,), inbound=True),
)
AZURE_CONTAINERS = (AZNode.Subscription, AZNode.ResourceGroup, AZNode.ManagementGroup)


class Walker:
    """Neighbour queries over the graph tables for one connection (kind ids looked up once)."""

    def __init__(self, conn: psycopg.Connection, kinds: Mapping[str, int]) -> None:
        self.conn = conn
        self.kinds = kinds

    def _ids(self, names: Iterable[str]) -> list[int]:
        return [self.kinds[name] for name in names if name in self.kinds]

    def step(self, frontier: Sequence[int], steps: Sequence[Step]) -> set[int]:
        """The neighbours of `frontier` along any of `steps` (one query)."""
        parts: list[str] = []
        params: dict[str, object] = {"frontier": list(frontier)}
        for i, step in enumerate(steps):
            edge, anchors = self.kinds.get(step.edge), self._ids(step.anchors)
            if edge is None or not anchors:
                continue
            anchor, neighbour = ("end_id", "start_id") if step.inbound else ("start_id", "end_id")
            parts.append(
                f"SELECT e.{neighbour} FROM edge e JOIN node a ON a.id = e.{anchor} "
                f"WHERE e.{anchor} = ANY(%(frontier)s) AND e.kind_id = %(edge{i})s AND a.kind_ids && %(anchors{i})s")
            params[f"edge{i}"], params[f"anchors{i}"] = edge, anchors
        if not parts or not frontier:
            return set()
        return {row[0] for row in self.conn.execute(" UNION ".join(parts), params)}

    def ancestors(self, start: Iterable[int], edge: str) -> dict[int, frozenset[int]]:
        """Every node above `start` along `edge` walked backwards, with its kind ids."""
        edge_id = self.kinds.get(edge)
        found: dict[int, frozenset[int]] = {}
        frontier = sorted(set(start))
        while frontier and edge_id is not None:
            rows = self.conn.execute(
                "SELECT DISTINCT e.start_id, p.kind_ids FROM edge e JOIN node p ON p.id = e.start_id "
                "WHERE e.end_id = ANY(%s) AND e.kind_id = %s", (frontier, edge_id)).fetchall()
            frontier = []
            for node, kind_ids in rows:
                if node not in found:
                    found[node] = frozenset(kind_ids)
                    frontier.append(node)
        return found

    def with_kind(self, ids: Iterable[int], names: Iterable[str]) -> set[int]:
        kind_ids, ids = self._ids(names), sorted(set(ids))
        if not kind_ids or not ids:
            return set()
        rows = self.conn.execute("SELECT id FROM node WHERE id = ANY(%s) AND kind_ids && %s::smallint[]",
                                 (ids, kind_ids))
        return {row[0] for row in rows}


def children(walker: Walker, seeds: set[int]) -> set[int]:
    found = set(seeds)
    frontier = sorted(seeds)
    while frontier:
        new = walker.step(frontier, CHILD_STEPS) - found
        found |= new
        frontier = sorted(new)
    return found - seeds


def parents(walker: Walker, nodes: set[int]) -> set[int]:
    kind = walker.kinds.get
    ou, container, domain = kind(ADNode.OU), kind(ADNode.Container), kind(ADNode.Domain)
    protected = _acl_protected(walker.conn, nodes)
    found: set[int] = set()
    links: set[int] = set()  # OUs and domains whose GPOs join
    for origins, containers_too in ((nodes - protected, True), (protected, False)):
        for node, kind_ids in walker.ancestors(origins, ADEdge.Contains).items():
            if ou in kind_ids or (containers_too and container in kind_ids):
                found.add(node)
            if ou in kind_ids or domain in kind_ids:
                links.add(node)
    found |= walker.step(sorted(links), (Step(ADEdge.GPLink, (ADNode.OU, ADNode.Domain), inbound=True),))
    azure = walker.ancestors(nodes, AZEdge.Contains)
    found |= walker.with_kind(azure, AZURE_CONTAINERS)
    found |= walker.step(sorted(nodes), (Step(AZEdge.RunsAs, (AZNode.ServicePrincipal,), inbound=True),))
    return found - nodes


def _acl_protected(conn: psycopg.Connection, nodes: set[int]) -> set[int]:
    rows = conn.execute("SELECT id FROM node WHERE id = ANY(%s) AND properties->'isaclprotected' = 'true'::jsonb",
                        (sorted(nodes),))
    return {row[0] for row in rows}


def expand(walker: Walker, seeds: set[int], how: Expansion) -> dict[int, NodeSource]:
    """The selected nodes with why each was selected (a seed before a child before a parent)."""
    selected = dict.fromkeys(seeds, NodeSource.SEED)
    if how in (Expansion.ALL, Expansion.CHILDREN):
        selected.update(dict.fromkeys(children(walker, seeds), NodeSource.CHILD))
    if how in (Expansion.ALL, Expansion.PARENTS):
        for node in parents(walker, set(selected)):
            selected.setdefault(node, NodeSource.PARENT)
    return selected
