"""Relay-target SQL (reference/behaviour.md §7): which computers or CAs an NTLM relay edge can reach."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from houndgraph.graph.budget import WorkBudget, WorkExhausted
from houndgraph.graph.connection import GraphConnection, int_array
from houndgraph.graph.kinds import ADEdge, ADNode
from houndgraph.graph.lookup import KIND_NAMES
from houndgraph.graph.paths import EdgeKey, shortest_path_members
from houndgraph.graph.projection.search import NodeLimitPassed, PairSearch
from houndgraph.graph.related import KindIds
from houndgraph.graph.rows import EdgeRow, EntityKeys, NodeRow, properties_columns

# A pair's shortest paths as the path routes answer them, in one statement: the nodes of the two object ids
# (stored upper-cased; the lowest node id wins when several share one), the search inside PostgreSQL
# (`graph/pair_path_edges.sql`, as `paths.pair_paths` calls it), and the nodes and edges of its paths,
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


# The node of an object id, as PAIR_PATH_GRAPH finds it.
END_ID = "SELECT n.id FROM node n WHERE n.properties->>'objectid' = %({})s ORDER BY n.id LIMIT 1"
PAIR_ENDS = f"SELECT ({END_ID.format('left')}), ({END_ID.format('right')})"
# The ends again (part 0), and the rows of the edges of `keys` (1) and of the nodes of `nodes` (2), as PAIR_PATH_GRAPH
# reads them: with every property, or only those of `keys` (`rows.properties_columns`).
@cache
def _keyed_graph(keys: EntityKeys | None) -> str:
    node_properties, edge_properties = properties_columns(keys, "n", "e")
    return (
        f"SELECT 0 AS part, ({END_ID.format('left')}), ({END_ID.format('right')}), NULL::smallint, NULL::bigint, "
        "NULL::text, NULL::jsonb, NULL::text[] "
        f"UNION ALL SELECT 1, e.id, e.start_id, e.kind_id, e.end_id, k.name, {edge_properties}, NULL "
        "FROM unnest(%(s)s::bigint[], %(k)s::smallint[], %(e)s::bigint[]) AS key(s, kind, e) "
        "JOIN edge e ON e.start_id = key.s AND e.kind_id = key.kind AND e.end_id = key.e "
        "JOIN kind k ON k.id = e.kind_id "
        f"UNION ALL SELECT 2, n.id, NULL, NULL, NULL, NULL, {node_properties}, {KIND_NAMES} FROM node n "
        "WHERE n.id = ANY(%(nodes)s::bigint[])")


# The node ids of the object ids the path routes were last asked about, in this process: the search of a pair runs
# before any statement, and the one statement that reads its paths' rows reads the ends too; when they are not the
# nodes remembered (written since), the search runs again from the nodes read. A pair asked about once costs one
# round trip to PostgreSQL, not two.
_end_ids: dict[str, int] = {}
END_IDS_KEPT = 65_536


async def pair_path_graph_in_memory(conn: GraphConnection, search: PairSearch, left: str, right: str,
                                    kind_ids: Sequence[int] | None, budget: WorkBudget, *,
                                    keys: EntityKeys | None = None) -> tuple[list[NodeRow], list[EdgeRow]] | None:
    """What `pair_path_graph` answers, the search run over the edges' copy in memory (`search`, the one of the
    edges the request sees), and the rows of its paths read with the ends in one statement: with every property, or
    only those of `keys`."""
    budget.check_time()
    left, right = left.upper(), right.upper()
    ends = (_end_ids.get(left), _end_ids.get(right))
    if ends[0] is None or ends[1] is None:
        cursor = await conn.execute(PAIR_ENDS, {"left": left, "right": right})
        row = await cursor.fetchone()
        ends = (row[0], row[1]) if row is not None else (None, None)
    for _ in range(3):
        _remember(left, right, ends)
        start, end = ends
        if start is None or end is None:
            return None
        found = _searched(search, start, end, kind_ids, budget) if start != end else []
        ends, nodes, edges = await _rows_with_ends(conn, left, right, found, keys)
        if ends == (start, end):
            return nodes, edges
    raise WorkExhausted("the path's ends kept changing while it was searched")


def _remember(left: str, right: str, ends: tuple[int | None, int | None]) -> None:
    if len(_end_ids) >= END_IDS_KEPT:
        _end_ids.clear()
    for object_id, node in zip((left, right), ends, strict=True):
        if node is None:
            _end_ids.pop(object_id, None)
        else:
            _end_ids[object_id] = node


def _searched(search: PairSearch, start: int, end: int, kind_ids: Sequence[int] | None, budget: WorkBudget
              ) -> list[EdgeKey]:
    try:
        visited, keys = search.shortest_path_edges(start, end, None if kind_ids is None else list(kind_ids),
                                                   budget.max_nodes - budget.nodes)
    except NodeLimitPassed as error:
        raise WorkExhausted(str(error)) from error
    budget.visit(visited)
    budget.found(shortest_path_members(start, end, keys))
    return keys


async def _rows_with_ends(conn: GraphConnection, left: str, right: str, found: list[EdgeKey], keys: EntityKeys | None
                          ) -> tuple[tuple[int | None, int | None], list[NodeRow], list[EdgeRow]]:
    starts, kinds, finishes = (list(column) for column in zip(*found, strict=True)) if found else ([], [], [])
    cursor = await conn.execute(_keyed_graph(keys), {
        "left": left, "right": right, "s": int_array(starts), "k": int_array(kinds), "e": int_array(finishes),
        "nodes": int_array(set(starts) | set(finishes))})
    ends: tuple[int | None, int | None] = (None, None)
    nodes: list[NodeRow] = []
    edges: list[EdgeRow] = []
    for part, row_id, start_id, _, end_id, kind, properties, kind_names in await cursor.fetchall():
        if part == 0:
            ends = (row_id, start_id)
        elif part == 1:
            edges.append(EdgeRow(id=row_id, start_id=start_id, end_id=end_id, kind=kind, properties=properties or {}))
        else:
            nodes.append(NodeRow(id=row_id, kinds=tuple(kind_names), properties=properties or {}))
    nodes.sort(key=lambda node: node.id)
    edges.sort(key=lambda edge: edge.id)
    return ends, nodes, edges


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


async def edge_of(conn: GraphConnection, start: int, kind: str, end: int, kinds: KindIds) -> EdgeRow | None:
    cursor = await conn.execute(
        f"SELECT e.id, e.properties FROM edge e WHERE e.start_id = %(s)s AND e.end_id = %(e)s "
        f"AND e.kind_id = ANY({kinds(kind)}) ORDER BY e.id LIMIT 1", {"s": start, "e": end})
    row = await cursor.fetchone()
    return EdgeRow(id=row[0], start_id=start, end_id=end, kind=kind, properties=row[1] or {}) if row else None


# Up from a node through the containers (Domain, OU, Container) that contain it, as far as this many hops.
INHERITANCE_DEPTH = 64


async def inheritance_sources(conn: GraphConnection, target: int, inheritance_hash: str,
                              kinds: KindIds) -> list[tuple[list[int], list[int]]]:
    """(Contains edge ids, node ids) of each walk up from `target` to a container whose inheritable ACEs
    include `inheritance_hash`, when no node on the way below that container is ACL-protected (the target
    included: a protected object inherits nothing)."""
    cursor = await conn.execute(
        "WITH RECURSIVE up(node_id, edge_ids, node_ids, blocked) AS ("
        "SELECT %(target)s::bigint, ARRAY[]::bigint[], ARRAY[%(target)s::bigint], false "
        "UNION ALL SELECT e.start_id, up.edge_ids || e.id, up.node_ids || e.start_id, "
        "up.blocked OR coalesce(c.properties->'isaclprotected' = 'true'::jsonb, false) "
        "FROM up JOIN node c ON c.id = up.node_id "
        f"JOIN edge e ON e.end_id = up.node_id AND e.kind_id = ANY({kinds(ADEdge.Contains)}) "
        f"JOIN node p ON p.id = e.start_id AND p.kind_ids && {kinds(ADNode.Domain, ADNode.OU, ADNode.Container)} "
        "WHERE NOT e.start_id = ANY(up.node_ids) AND cardinality(up.edge_ids) < %(depth)s) "
        "SELECT up.edge_ids, up.node_ids FROM up JOIN node n ON n.id = up.node_id "
        "WHERE cardinality(up.edge_ids) > 0 AND NOT up.blocked "
        "AND coalesce(n.properties->'inheritancehashes' ? %(hash)s, false) ORDER BY up.edge_ids",
        {"target": target, "hash": inheritance_hash, "depth": INHERITANCE_DEPTH})
    return [(list(row[0]), list(row[1])) for row in await cursor.fetchall()]
