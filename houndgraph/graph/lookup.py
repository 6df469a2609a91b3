"""Reading nodes and edges by id or object id, with their kind names, for the graph views."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from houndgraph.graph.connection import GraphConnection, int_array
from houndgraph.graph.kind_catalogue import kind_map
from houndgraph.graph.related import KindIds
from houndgraph.graph.rows import EdgeRow, NodeRow

# A node's kind names in the order its labels were written (the first non-base one is its display kind).
KIND_NAMES = ("ARRAY(SELECT k.name FROM unnest(n.kind_ids) WITH ORDINALITY AS u(kind_id, pos) "
              "JOIN kind k ON k.id = u.kind_id ORDER BY u.pos)")


async def kind_ids(conn: GraphConnection) -> KindIds:
    return KindIds(await kind_map(conn))


def _node(row: Sequence[Any]) -> NodeRow:
    return NodeRow(id=row[0], kinds=tuple(row[1]), properties=row[2] or {})


async def node_by_object_id(conn: GraphConnection, object_id: str, kinds: KindIds,
                            kind_names: Iterable[str] | None = None) -> NodeRow | None:
    """Object ids are stored upper-cased; a lower-case one from a client finds the same node."""
    kind_filter = f" AND n.kind_ids && {kinds(*kind_names)}" if kind_names is not None else ""
    cursor = await conn.execute(
        f"SELECT n.id, {KIND_NAMES}, n.properties FROM node n WHERE n.properties->>'objectid' = %(oid)s{kind_filter} "
        "ORDER BY n.id LIMIT 1", {"oid": object_id.upper()})
    row = await cursor.fetchone()
    return _node(row) if row else None


async def node_by_id(conn: GraphConnection, node_id: int) -> NodeRow | None:
    nodes = await nodes_by_id(conn, [node_id])
    return nodes[0] if nodes else None


async def nodes_by_id(conn: GraphConnection, ids: Iterable[int]) -> list[NodeRow]:
    cursor = await conn.execute(
        f"SELECT n.id, {KIND_NAMES}, n.properties FROM node n WHERE n.id = ANY(%(ids)s::bigint[]) ORDER BY n.id",
        {"ids": int_array(sorted(set(ids)))})
    return [_node(row) for row in await cursor.fetchall()]


async def edges_by_id(conn: GraphConnection, ids: Iterable[int]) -> list[EdgeRow]:
    cursor = await conn.execute(
        "SELECT e.id, e.start_id, e.end_id, k.name, e.properties FROM edge e JOIN kind k ON k.id = e.kind_id "
        "WHERE e.id = ANY(%(ids)s::bigint[]) ORDER BY e.id", {"ids": int_array(sorted(set(ids)))})
    return [EdgeRow(id=r[0], start_id=r[1], end_id=r[2], kind=r[3], properties=r[4] or {})
            for r in await cursor.fetchall()]


async def edges_among(conn: GraphConnection, node_ids: Iterable[int], edge_kinds: Iterable[str],
                      kinds: KindIds) -> list[EdgeRow]:
    """Edges of the given kinds whose both ends are in `node_ids`."""
    cursor = await conn.execute(
        "SELECT e.id, e.start_id, e.end_id, k.name, e.properties FROM edge e JOIN kind k ON k.id = e.kind_id "
        f"WHERE e.start_id = ANY(%(ids)s::bigint[]) AND e.end_id = ANY(%(ids)s::bigint[]) "
        f"AND e.kind_id = ANY({kinds(*edge_kinds)}) ORDER BY e.id", {"ids": int_array(sorted(set(node_ids)))})
    return [EdgeRow(id=r[0], start_id=r[1], end_id=r[2], kind=r[3], properties=r[4] or {})
            for r in await cursor.fetchall()]
