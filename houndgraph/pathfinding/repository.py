"""Relay-target SQL (reference/behaviour.md §7): which computers or CAs an NTLM relay edge can reach."""

from __future__ import annotations

from collections.abc import Sequence

from houndgraph.graph.connection import GraphConnection
from houndgraph.graph.kinds import ADEdge, ADNode
from houndgraph.graph.lookup import KIND_NAMES
from houndgraph.graph.paths import EdgeKey, KeyPath
from houndgraph.graph.related import KindIds
from houndgraph.graph.rows import EdgeRow, NodeRow


async def node_ids_by_object_id(conn: GraphConnection, object_ids: Sequence[str]) -> list[int | None]:
    """The node of each object id, in one query (the ends of a path search): object ids are stored
    upper-cased, and the lowest node id wins when several nodes share one."""
    cursor = await conn.execute(
        "SELECT (SELECT n.id FROM node n WHERE n.properties->>'objectid' = u.oid ORDER BY n.id LIMIT 1) "
        "FROM unnest(%(oids)s::text[]) WITH ORDINALITY AS u(oid, pos) ORDER BY u.pos",
        {"oids": [object_id.upper() for object_id in object_ids]})
    return [row[0] for row in await cursor.fetchall()]


# The nodes and the edges of paths in one statement: edges found by their key (the edge table's unique key),
# nodes by id; `node` tells the rows apart.
PATH_GRAPH = (
    "SELECT false AS node, e.id, e.start_id, e.kind_id, e.end_id, k.name, e.properties, NULL::text[] "
    "FROM unnest(%(s)s::bigint[], %(k)s::smallint[], %(e)s::bigint[]) AS key(s, kind, e) "
    "JOIN edge e ON e.start_id = key.s AND e.kind_id = key.kind AND e.end_id = key.e JOIN kind k ON k.id = e.kind_id "
    f"UNION ALL SELECT true, n.id, NULL, NULL, NULL, NULL, n.properties, {KIND_NAMES} FROM node n "
    "WHERE n.id = ANY(%(n)s::bigint[])")


async def path_graph(conn: GraphConnection, walks: Sequence[KeyPath]) -> tuple[list[NodeRow], list[EdgeRow]]:
    """The nodes and edges of `walks` (edges as keys, `paths.pair_paths`), ordered by id, in one round trip.
    A walk one of whose edges is gone since the search read it (a concurrent write) is left out, as
    `paths.shortest_paths` leaves it out."""
    keys = sorted({step for _, _, walk in walks for step in walk[1::2] if isinstance(step, tuple)})
    node_ids = sorted({step for _, _, walk in walks for step in walk[0::2] if isinstance(step, int)})
    if not keys:
        return [], []
    starts, kinds, ends = (list(column) for column in zip(*keys, strict=True))
    cursor = await conn.execute(PATH_GRAPH, {"s": starts, "k": kinds, "e": ends, "n": node_ids})
    edges: dict[EdgeKey, EdgeRow] = {}
    nodes: dict[int, NodeRow] = {}
    for is_node, row_id, start, kind_id, end, kind, properties, kind_names in await cursor.fetchall():
        if is_node:
            nodes[row_id] = NodeRow(id=row_id, kinds=tuple(kind_names), properties=properties or {})
        else:
            edges[(start, kind_id, end)] = EdgeRow(id=row_id, start_id=start, end_id=end, kind=kind,
                                                   properties=properties or {})
    kept = [walk for _, _, walk in walks if all(step in edges for step in walk[1::2])]
    used_edges = {edges[step].id: edges[step] for walk in kept for step in walk[1::2] if isinstance(step, tuple)}
    used_nodes = {step for walk in kept for step in walk[0::2] if isinstance(step, int)}
    return ([nodes[node] for node in sorted(used_nodes) if node in nodes],
            [used_edges[edge] for edge in sorted(used_edges)])


async def edge_exists(conn: GraphConnection, start: int, kind: str, end: int, kinds: KindIds) -> bool:
    cursor = await conn.execute(
        f"SELECT 1 FROM edge WHERE start_id = %(s)s AND end_id = %(e)s AND kind_id = ANY({kinds(kind)}) LIMIT 1",
        {"s": start, "e": end})
    return await cursor.fetchone() is not None


def _flag(name: str, value: bool) -> str:
    # Present and equal: a missing property never qualifies (the reference compares typed values).
    return f"n.properties->'{name}' = '{'true' if value else 'false'}'::jsonb"


async def relay_targets(conn: GraphConnection, kind: str, start: int, end: int,
                        kinds: KindIds) -> list[int]:
    sid = "(SELECT s.properties->>'domainsid' FROM node s WHERE s.id = %(start)s)"
    if kind == ADEdge.CoerceAndRelayNTLMToLDAP:
        where = (f"n.kind_ids && {kinds(ADNode.Computer)} AND {_flag('isdc', True)} AND {_flag('ldapavailable', True)} "
                 f"AND {_flag('ldapsigning', False)} AND n.properties->>'domainsid' = {sid}")
    elif kind == ADEdge.CoerceAndRelayNTLMToLDAPS:
        where = (f"n.kind_ids && {kinds(ADNode.Computer)} AND {_flag('isdc', True)} AND {_flag('ldapsepa', False)} "
                 f"AND {_flag('ldapsavailable', True)} AND n.properties->>'domainsid' = {sid}")
    elif kind == ADEdge.CoerceAndRelayNTLMToADCS:
        where = (f"n.kind_ids && {kinds(ADNode.EnterpriseCA)} AND {_flag('hasvulnerableendpoint', True)} "
                 f"AND n.properties->>'domainsid' = {sid}")
    elif kind == ADEdge.CoerceAndRelayNTLMToSMB:
        # Admins of the target computer, groups unrolled to their members; computers among them that do
        # not restrict outbound NTLM, of the coercing domain, other than the target itself.
        where = (
            f"n.id IN (WITH RECURSIVE w(id) AS (SELECT e.start_id FROM edge e WHERE e.end_id = %(end)s "
            f"AND e.kind_id = ANY({kinds(ADEdge.AdminTo)}) UNION SELECT e.start_id FROM w JOIN edge e "
            f"ON e.end_id = w.id AND e.kind_id = ANY({kinds(ADEdge.MemberOf)})) SELECT id FROM w) "
            f"AND NOT n.kind_ids && {kinds(ADNode.User, ADNode.Group)} AND {_flag('restrictoutboundntlm', False)} "
            f"AND n.properties->>'domainsid' = {sid} AND n.id <> %(end)s")
    else:
        return []
    cursor = await conn.execute(f"SELECT n.id FROM node n WHERE {where} ORDER BY n.id", {"start": start, "end": end})
    return [row[0] for row in await cursor.fetchall()]
