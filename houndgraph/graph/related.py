"""The related-entity sets behind the entity panels: one SQL statement per relation, over the edge table.

Each relation is a SELECT of distinct node ids (column `id`) related to the node `%(root)s`, written
after the reference's list delegates (`packages/go/analysis/ad/queries.go`), in our words:
* walks are recursive CTEs with UNION, so cycles end and every node counts once;
* "terminals" of a walk are the reached nodes the walk cannot expand further;
* kind ids are looked up first (`KindIds`) and written into the statement as integer literals, so
  the planner sees constants and uses the (start_id, kind_id) / (end_id, kind_id) indexes.

A relation also names the edge kinds drawn when the list is asked for as a graph (`type=graph`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from houndgraph.graph.kinds import AD_ACL_EDGES, ADEdge, ADNode

# Deep enough for any real OU tree; bounds the ancestor walk, whose rows carry a depth.
MAX_OU_DEPTH = 64


class KindIds:
    """Kind names -> `ARRAY[...]::smallint[]` literals; a kind absent from the graph matches nothing."""

    def __init__(self, ids: Mapping[str, int]) -> None:
        self.ids = dict(ids)

    def __call__(self, *names: str | Iterable[str]) -> str:
        flat: list[str] = []
        for name in names:
            flat.extend([name] if isinstance(name, str) else name)
        found = sorted({self.ids[n] for n in flat if n in self.ids})
        return f"ARRAY[{','.join(map(str, found))}]::smallint[]"


Builder = Callable[[KindIds], str]


@dataclass(frozen=True)
class Relation:
    build: Builder
    edge_kinds: tuple[str, ...]

    def sql(self, kinds: KindIds) -> str:
        return self.build(kinds)


def walk(direction: str, edges: Iterable[str], *, node_kinds: Iterable[str] = (), start_edges: Iterable[str] = ()
          ) -> Builder:
    """Every node reached from the root over `edges` (first hop over `start_edges` when given), minus
    the root, optionally only those of `node_kinds`."""
    near, far = ("start_id", "end_id") if direction == "out" else ("end_id", "start_id")
    edges, node_kinds, start_edges = tuple(edges), tuple(node_kinds), tuple(start_edges)

    def build(k: KindIds) -> str:
        seed = "SELECT %(root)s::bigint" if not start_edges else (
            f"SELECT e.{far} FROM edge e WHERE e.{near} = %(root)s AND e.kind_id = ANY({k(start_edges)})")
        # The node table is read only to filter by kind: a count of 10k members stays index-only.
        join, keep = ((" JOIN node n ON n.id = w.id", f" AND n.kind_ids && {k(node_kinds)}") if node_kinds
                      else ("", ""))
        return (f"WITH RECURSIVE w(id) AS ({seed} UNION SELECT e.{far} FROM w JOIN edge e ON e.{near} = w.id "
                f"AND e.kind_id = ANY({k(edges)})) "
                f"SELECT w.id FROM w{join} WHERE w.id <> %(root)s{keep}")
    return build


def through_groups(direction: str, member_of: str, right: Iterable[str], *, target_kinds: Iterable[str] = (),
                    terminals_only: bool = False) -> Builder:
    """Outbound: what the root, or a group it belongs to, holds `right` on. Inbound: who holds `right`
    on the root, directly or as a member of a group that does (`terminals_only`: leaves only)."""
    right, target_kinds = tuple(right), tuple(target_kinds)

    def build(k: KindIds) -> str:
        keep = f" AND n.kind_ids && {k(target_kinds)}" if target_kinds else ""
        if direction == "out":
            return (f"WITH RECURSIVE g(id) AS (SELECT %(root)s::bigint UNION SELECT e.end_id FROM g JOIN edge e "
                    f"ON e.start_id = g.id AND e.kind_id = ANY({k(member_of)})) "
                    f"SELECT DISTINCT e.end_id AS id FROM g JOIN edge e ON e.start_id = g.id "
                    f"AND e.kind_id = ANY({k(right)}){' JOIN node n ON n.id = e.end_id' if target_kinds else ''} "
                    f"WHERE e.end_id <> %(root)s{keep}")
        leaves = (f" AND NOT EXISTS (SELECT 1 FROM edge m WHERE m.end_id = w.id AND m.kind_id = ANY({k(member_of)}))"
                  if terminals_only else "")
        join = " JOIN node n ON n.id = w.id" if target_kinds else ""
        return (f"WITH RECURSIVE w(id) AS (SELECT e.start_id FROM edge e WHERE e.end_id = %(root)s "
                f"AND e.kind_id = ANY({k(right)}) UNION SELECT e.start_id FROM w JOIN edge e ON e.end_id = w.id "
                f"AND e.kind_id = ANY({k(member_of)})) "
                f"SELECT w.id FROM w{join} WHERE w.id <> %(root)s{keep}{leaves}")
    return build


def one_hop(direction: str, edges: Iterable[str], *, node_kinds: Iterable[str] = ()) -> Builder:
    near, far = ("start_id", "end_id") if direction == "out" else ("end_id", "start_id")
    edges, node_kinds = tuple(edges), tuple(node_kinds)

    def build(k: KindIds) -> str:
        keep = f" AND n.kind_ids && {k(node_kinds)}" if node_kinds else ""
        return (f"SELECT DISTINCT e.{far} AS id FROM edge e JOIN node n ON n.id = e.{far} "
                f"WHERE e.{near} = %(root)s AND e.kind_id = ANY({k(edges)}) AND e.{far} <> %(root)s{keep}")
    return build


def union(*builders: Builder) -> Builder:
    def build(k: KindIds) -> str:
        return " UNION ".join(f"({b(k)})" for b in builders)
    return build


_SID = "(SELECT COALESCE(r.properties->>'domainsid', r.properties->>'objectid') FROM node r WHERE r.id = %(root)s)"


def in_domain(*node_kinds: str) -> Builder:
    """Objects of a kind whose `domainsid` is the root domain's."""
    def build(k: KindIds) -> str:
        return f"SELECT n.id FROM node n WHERE n.kind_ids && {k(node_kinds)} AND n.properties->>'domainsid' = {_SID}"
    return build


def foreign_members(node_kind: str) -> Builder:
    """Principals of another domain that belong, directly or through other groups, to the domain's groups."""
    def build(k: KindIds) -> str:
        return (f"WITH RECURSIVE m(id) AS ({in_domain(ADNode.Group)(k)} UNION SELECT e.start_id FROM m "
                f"JOIN edge e ON e.end_id = m.id AND e.kind_id = ANY({k(ADEdge.MemberOf)})) "
                f"SELECT m.id FROM m JOIN node n ON n.id = m.id WHERE n.kind_ids && {k(node_kind)} "
                f"AND n.properties->>'domainsid' <> {_SID}")
    return build


def foreign_holders(right: Iterable[str], target_kind: str) -> Builder:
    """Principals of another domain holding `right` on the domain's objects of `target_kind`, directly
    or through a group of any domain."""
    right = tuple(right)

    def build(k: KindIds) -> str:
        return (f"WITH RECURSIVE d(id) AS (SELECT DISTINCT e.start_id FROM edge e JOIN node t ON t.id = e.end_id "
                f"WHERE e.kind_id = ANY({k(right)}) AND t.kind_ids && {k(target_kind)} "
                f"AND t.properties->>'domainsid' = {_SID}), "
                f"m(id) AS (SELECT id FROM d UNION SELECT e.start_id FROM m JOIN edge e ON e.end_id = m.id "
                f"AND e.kind_id = ANY({k(ADEdge.MemberOf)})) "
                f"SELECT m.id FROM m JOIN node n ON n.id = m.id WHERE n.properties->>'domainsid' <> {_SID}")
    return build


def applied_gpos(k: KindIds) -> str:
    """GPOs that apply to the root: linked to the root or to a Domain / OU / Container above it, the link
    enforced or no OU between the linked object and the root (the root included) blocking inheritance."""
    return (
        f"WITH RECURSIVE up(id, depth, blocked) AS (SELECT %(root)s::bigint, 0, false UNION ALL "
        f"SELECT e.start_id, up.depth + 1, up.blocked OR (cur.kind_ids && {k(ADNode.OU)} "
        f"AND COALESCE(cur.properties->>'blocksinheritance', 'false') = 'true') "
        f"FROM up JOIN node cur ON cur.id = up.id JOIN edge e ON e.end_id = up.id "
        f"AND e.kind_id = ANY({k(ADEdge.Contains)}) JOIN node p ON p.id = e.start_id "
        f"AND p.kind_ids && {k(ADNode.Domain, ADNode.OU, ADNode.Container)} WHERE up.depth < {MAX_OU_DEPTH}) "
        f"SELECT DISTINCT l.start_id AS id FROM up JOIN edge l ON l.end_id = up.id "
        f"AND l.kind_id = ANY({k(ADEdge.GPLink)}) JOIN node g ON g.id = l.start_id AND g.kind_ids && {k(ADNode.GPO)} "
        f"WHERE COALESCE(l.properties->>'enforced', 'false') = 'true' OR NOT up.blocked")


def gpo_affected(*node_kinds: str, tier_zero: bool = False) -> Builder:
    """What a GPO applies to: everything under the Domains / OUs it is linked to, not entering an OU that
    blocks inheritance unless the link is enforced."""
    def build(k: KindIds) -> str:
        keep = f"n.kind_ids && {k(node_kinds)}"
        if tier_zero:
            keep += (f" AND (n.kind_ids && {k('Tag_Tier_Zero')} "
                     f"OR COALESCE(n.properties->>'system_tags', '') LIKE '%%admin_tier_0%%')")
        return (
            f"WITH RECURSIVE down(id, enforced) AS (SELECT l.end_id, COALESCE(l.properties->>'enforced', 'false') "
            f"= 'true' FROM edge l JOIN node t ON t.id = l.end_id AND t.kind_ids && {k(ADNode.Domain, ADNode.OU)} "
            f"WHERE l.start_id = %(root)s AND l.kind_id = ANY({k(ADEdge.GPLink)}) UNION "
            f"SELECT e.end_id, down.enforced FROM down JOIN edge e ON e.start_id = down.id "
            f"AND e.kind_id = ANY({k(ADEdge.Contains)}) JOIN node c ON c.id = e.end_id WHERE down.enforced OR NOT "
            f"(c.kind_ids && {k(ADNode.OU)} AND COALESCE(c.properties->>'blocksinheritance', 'false') = 'true')) "
            f"SELECT DISTINCT down.id FROM down JOIN node n ON n.id = down.id WHERE {keep}")
    return build


M = ADEdge.MemberOf
ACL = tuple(sorted(AD_ACL_EDGES))
ESCALATIONS = (ADEdge.GoldenCert, ADEdge.ADCSESC1, ADEdge.ADCSESC3, ADEdge.ADCSESC4, ADEdge.ADCSESC6a,
               ADEdge.ADCSESC6b, ADEdge.ADCSESC9a, ADEdge.ADCSESC9b, ADEdge.ADCSESC10a, ADEdge.ADCSESC10b)
PKI_INBOUND = (ADEdge.HostsCAService, ADEdge.IssuedSignedBy, ADEdge.EnterpriseCAFor)
PKI_OUTBOUND = (ADEdge.EnterpriseCAFor, ADEdge.TrustedForNTAuth, ADEdge.IssuedSignedBy, ADEdge.RootCAFor,
                ADEdge.NTAuthStoreFor)
TRUSTS = (ADEdge.SameForestTrust, ADEdge.CrossForestTrust)
PRINCIPALS = (ADNode.User, ADNode.Computer, ADNode.Group)

CONTROLLERS = Relation(through_groups("in", M, ACL), (*ACL, M))
CONTROLLABLES = Relation(through_groups("out", M, ACL), (*ACL, M))
MEMBERSHIP = Relation(walk("out", [M]), (M,))
MEMBERS = Relation(walk("in", [M]), (M,))
USER_SESSIONS = Relation(one_hop("in", [ADEdge.HasSession]), (ADEdge.HasSession,))
COMPUTER_SESSIONS = Relation(one_hop("out", [ADEdge.HasSession]), (ADEdge.HasSession,))
APPLIED_GPOS = Relation(applied_gpos, (ADEdge.GPLink, ADEdge.Contains))
PKI_HIERARCHY = Relation(union(walk("in", PKI_INBOUND), walk("out", PKI_OUTBOUND)),
                         tuple(sorted({*PKI_INBOUND, *PKI_OUTBOUND})))
ROOT_CA_PKI_HIERARCHY = Relation(walk("in", PKI_INBOUND), PKI_INBOUND)


def rights(edge: str) -> Relation:
    """Computers the root holds `edge` on, itself or through its groups (admin-rights, rdp-rights, ...)."""
    return Relation(through_groups("out", M, [edge], target_kinds=[ADNode.Computer]), (edge, M))


def holders(edge: str) -> Relation:
    """The principals holding `edge` on the root computer, groups unrolled to their members (admin-users, ...)."""
    return Relation(through_groups("in", M, [edge], terminals_only=True), (edge, M))


def _group_sessions() -> Relation:
    # Computers with a session of the group or of any (transitive) member of it. Only computers hold
    # HasSession edges, so the node table is not read (10k members with 5 sessions each: 50k edges).
    def build(k: KindIds) -> str:
        return (f"WITH RECURSIVE m(id) AS (SELECT %(root)s::bigint UNION SELECT e.start_id FROM m JOIN edge e "
                f"ON e.end_id = m.id AND e.kind_id = ANY({k(M)})) SELECT DISTINCT e.start_id AS id FROM m "
                f"JOIN edge e ON e.end_id = m.id AND e.kind_id = ANY({k(ADEdge.HasSession)})")
    return Relation(build, (ADEdge.HasSession, M))


GROUP_SESSIONS = _group_sessions()
