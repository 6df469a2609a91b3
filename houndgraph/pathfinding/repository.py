"""Relay-target SQL (reference/behaviour.md §7): which computers or CAs an NTLM relay edge can reach."""

from __future__ import annotations

from collections.abc import Sequence

from houndgraph.graph.budget import WorkBudget, WorkExhausted
from houndgraph.graph.connection import GraphConnection, int_array
from houndgraph.graph.kinds import ADEdge, ADNode
from houndgraph.graph.lookup import KIND_NAMES
from houndgraph.graph.paths import EdgeKey, shortest_path_members
from houndgraph.graph.projection.search import NodeLimitPassed, PairSearch
from houndgraph.graph.related import KindIds
from houndgraph.graph.rows import EdgeRow, NodeRow

# A pair's shortest paths as the path routes answer them, in one statement: the nodes of the two object ids
# (stored upper-cased; the lowest node id wins when several share one), the search inside PostgreSQL
# (`pair_path_edges`, migrations 0025 and 0026, as `paths.pair_paths` calls it), and the nodes and edges of its paths,
# edges found by their key (the edge table's unique key); `part` tells the rows apart: 0 the ends and the nodes
# visited (NULL when no search ran), 1 an edge, 2 a node.
PAIR_PATH_GRAPH = (
    "WITH ends AS MATERIALIZED (SELECT "
    "(SELECT n.id FROM node n WHERE n.properties->>'objectid' = %(left)s ORDER BY n.id LIMIT 1) AS l, "
    "(SELECT n.id FROM node n WHERE n.properties->>'objectid' = %(right)s ORDER BY n.id LIMIT 1) AS r), "
    "found AS MATERIALIZED (SELECT f.* FROM ends, "
    "LATERAL pair_path_edges(ends.l, ends.r, %(kinds)s::smallint[], %(max)s) AS f WHERE ends.l <> ends.r) "
    "SELECT 0 AS part, ends.l, ends.r, NULL::smallint, found.visited, NULL::text, NULL::jsonb, NULL::text[] "
    "FROM ends LEFT JOIN found ON true "
    "UNION ALL SELECT 1, e.id, e.start_id, e.kind_id, e.end_id, k.name, e.properties, NULL FROM found, "
    "unnest(found.starts, found.kinds, found.ends) AS key(s, kind, e) "
    "JOIN edge e ON e.start_id = key.s AND e.kind_id = key.kind AND e.end_id = key.e JOIN kind k ON k.id = e.kind_id "
    f"UNION ALL SELECT 2, n.id, NULL, NULL, NULL, NULL, n.properties, {KIND_NAMES} FROM node n "
    "WHERE n.id IN (SELECT unnest(found.starts || found.ends) FROM found)")


async def pair_path_graph(conn: GraphConnection, left: str, right: str, kind_ids: Sequence[int] | None,
                          budget: WorkBudget) -> tuple[list[NodeRow], list[EdgeRow]] | None:
    """The nodes and edges of every shortest path from the node of object id `left` to that of `right`
    (edges followed forward, of `kind_ids` or any kind), ordered by id, in one round trip: what
    the search of `paths.pair_paths` finds. None when either object id names no node; no nodes and
    edges when the two are the same node or not connected. Raises WorkExhausted past `budget`."""
    budget.check_time()
    cursor = await conn.execute(PAIR_PATH_GRAPH, {
        "left": left.upper(), "right": right.upper(), "max": budget.max_nodes - budget.nodes,
        "kinds": None if kind_ids is None else int_array(kind_ids)})
    nodes: list[NodeRow] = []
    edges: list[EdgeRow] = []
    keys: list[EdgeKey] = []
    start = end = visited = None
    for part, row_id, start_id, kind_id, end_id, kind, properties, kind_names in await cursor.fetchall():
        if part == 0:
            start, end, visited = row_id, start_id, end_id
        elif part == 1:
            edges.append(EdgeRow(id=row_id, start_id=start_id, end_id=end_id, kind=kind, properties=properties or {}))
            keys.append((start_id, kind_id, end_id))
        else:
            nodes.append(NodeRow(id=row_id, kinds=tuple(kind_names), properties=properties or {}))
    if start is None or end is None:
        return None
    if visited is not None:
        budget.visit(visited)
        budget.found(shortest_path_members(start, end, keys))
    nodes.sort(key=lambda node: node.id)
    edges.sort(key=lambda edge: edge.id)
    return nodes, edges


# The nodes of two object ids, as PAIR_PATH_GRAPH finds them.
PAIR_ENDS = ("SELECT (SELECT n.id FROM node n WHERE n.properties->>'objectid' = %(left)s ORDER BY n.id LIMIT 1), "
             "(SELECT n.id FROM node n WHERE n.properties->>'objectid' = %(right)s ORDER BY n.id LIMIT 1)")
# The rows of the edges of `keys` and of the nodes of `nodes`, as PAIR_PATH_GRAPH reads them.
KEYED_GRAPH = (
    "SELECT 1 AS part, e.id, e.start_id, e.kind_id, e.end_id, k.name, e.properties, NULL::text[] "
    "FROM unnest(%(s)s::bigint[], %(k)s::smallint[], %(e)s::bigint[]) AS key(s, kind, e) "
    "JOIN edge e ON e.start_id = key.s AND e.kind_id = key.kind AND e.end_id = key.e JOIN kind k ON k.id = e.kind_id "
    f"UNION ALL SELECT 2, n.id, NULL, NULL, NULL, NULL, n.properties, {KIND_NAMES} FROM node n "
    "WHERE n.id = ANY(%(nodes)s::bigint[])")


async def pair_path_graph_in_memory(conn: GraphConnection, search: PairSearch, left: str, right: str,
                                    kind_ids: Sequence[int] | None, budget: WorkBudget
                                    ) -> tuple[list[NodeRow], list[EdgeRow]] | None:
    """What `pair_path_graph` answers, the search run over the edges' copy in memory (`search`, the one of the
    edges the request sees): the ends in one statement, their paths' rows in another."""
    budget.check_time()
    cursor = await conn.execute(PAIR_ENDS, {"left": left.upper(), "right": right.upper()})
    ends = await cursor.fetchone()
    if ends is None or ends[0] is None or ends[1] is None:
        return None
    start, end = ends
    if start == end:
        return [], []
    try:
        visited, keys = search.shortest_path_edges(start, end, None if kind_ids is None else list(kind_ids),
                                                   budget.max_nodes - budget.nodes)
    except NodeLimitPassed as error:
        raise WorkExhausted(str(error)) from error
    budget.visit(visited)
    budget.found(shortest_path_members(start, end, keys))
    if not keys:
        return [], []
    starts, kinds, finishes = zip(*keys, strict=True)
    cursor = await conn.execute(KEYED_GRAPH, {"s": int_array(starts), "k": int_array(kinds), "e": int_array(finishes),
                                              "nodes": int_array(set(starts) | set(finishes))})
    nodes: list[NodeRow] = []
    edges: list[EdgeRow] = []
    for part, row_id, start_id, _, end_id, kind, properties, kind_names in await cursor.fetchall():
        if part == 1:
            edges.append(EdgeRow(id=row_id, start_id=start_id, end_id=end_id, kind=kind, properties=properties or {}))
        else:
            nodes.append(NodeRow(id=row_id, kinds=tuple(kind_names), properties=properties or {}))
    nodes.sort(key=lambda node: node.id)
    edges.sort(key=lambda edge: edge.id)
    return nodes, edges


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
