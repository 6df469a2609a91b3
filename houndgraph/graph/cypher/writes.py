"""The SQL of Cypher's updating clauses: set-based, parameterised writes to node, edge and kind.

Every function takes the values of all rows at once (one statement per call), so `MATCH (u:User)
SET u.owned = true` over 50,000 users is one UPDATE, not 50,000.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from houndgraph.graph.cypher.errors import CypherError

# Creating kinds belongs to the kind catalogue; named here for the update steps that call writes.*.
from houndgraph.graph.kind_catalogue import ensure_kinds as ensure_kinds
from houndgraph.graph.store.edges import upsert_edges_returning_ids

OBJECT_ID = "objectid"


class NodeHasRelationships(CypherError):
    def __init__(self, node_id: int) -> None:
        # Neo4j's wording, which users of the reference know.
        super().__init__(f"Cannot delete node<{node_id}>, because it still has relationships. "
                         "To delete this node, you must first delete its relationships (DETACH DELETE).")


class DuplicateObjectId(CypherError):
    def __init__(self, error: psycopg.errors.UniqueViolation) -> None:
        detail = error.diag.message_detail or ""
        super().__init__(f"objectid must be unique: {detail}".strip())


@dataclass
class PropertyChange:
    """What one entity's properties become: optionally emptied first, then merged, then keys removed."""

    replace: bool = False
    merge: dict[str, Any] = field(default_factory=dict)
    remove: set[str] = field(default_factory=set)

    def then(self, *, replace: bool = False, merge: dict[str, Any] | None = None,
             remove: Iterable[str] = ()) -> None:
        """Fold a later change into this one, as if both ran in order."""
        merge = merge or {}
        if replace:
            self.replace, self.merge, self.remove = True, dict(merge), set()
        else:
            self.merge.update(merge)
            self.remove -= set(merge)
        for key in remove:
            self.merge.pop(key, None)
            self.remove.add(key)


def normalise(properties: dict[str, Any]) -> dict[str, Any]:
    """Object ids are stored upper-cased, as the ingest store writes them."""
    value = properties.get(OBJECT_ID)
    if isinstance(value, str):
        return {**properties, OBJECT_ID: value.upper()}
    return properties


async def new_node_ids(conn: psycopg.AsyncConnection, count: int) -> list[int]:
    """Ids drawn ahead of the insert, so each created node is known by the row that created it."""
    if count == 0:
        return []
    cursor = await conn.execute("SELECT nextval(pg_get_serial_sequence('node', 'id')) FROM generate_series(1, %s)",
                                (count,))
    return [int(row[0]) for row in await cursor.fetchall()]


async def insert_nodes(conn: psycopg.AsyncConnection, nodes: Sequence[tuple[int, Sequence[int], dict[str, Any]]]
                       ) -> None:
    if not nodes:
        return
    rows = Jsonb([[node_id, list(kind_ids), normalise(props)] for node_id, kind_ids, props in nodes])
    try:
        await conn.execute(
            "INSERT INTO node (id, kind_ids, properties) SELECT (x->>0)::bigint, "
            "ARRAY(SELECT k::smallint FROM jsonb_array_elements_text(x->1) WITH ORDINALITY AS t(k, o) ORDER BY o), "
            "x->2 FROM jsonb_array_elements(%s::jsonb) AS x", (rows,))
    except psycopg.errors.UniqueViolation as error:
        raise DuplicateObjectId(error) from error


async def upsert_edges(conn: psycopg.AsyncConnection, edges: Sequence[tuple[int, int, int, dict[str, Any]]],
                       ) -> dict[tuple[int, int, int], int]:
    """Creates (start, kind, end) edges; returns their ids. The graph holds one edge per (start, kind, end),
    as the ingest store does: creating one that exists merges the new properties into it."""
    merged: dict[tuple[int, int, int], dict[str, Any]] = {}
    for start, kind_id, end, props in edges:
        merged.setdefault((start, kind_id, end), {}).update(props)
    if not merged:
        return {}
    return await upsert_edges_returning_ids(
        conn, [(start, end, kind_id, json.dumps(props)) for (start, kind_id, end), props in merged.items()])


async def write_properties(conn: psycopg.AsyncConnection, table: str, changes: dict[int, PropertyChange]) -> None:
    if not changes:
        return
    assert table in ("node", "edge")
    rows = []
    for entity_id, change in changes.items():
        merge = normalise(change.merge) if table == "node" else change.merge
        rows.append([entity_id, change.replace, merge, sorted(change.remove)])
    try:
        await conn.execute(
            f"UPDATE {table} AS t SET properties = ((CASE WHEN (x->>1)::boolean THEN '{{}}'::jsonb "
            "ELSE t.properties END) || (x->2)) - ARRAY(SELECT jsonb_array_elements_text(x->3)) "
            "FROM jsonb_array_elements(%s::jsonb) AS x WHERE t.id = (x->>0)::bigint", (Jsonb(rows),))
    except psycopg.errors.UniqueViolation as error:
        raise DuplicateObjectId(error) from error


async def add_labels(conn: psycopg.AsyncConnection, node_ids: Iterable[int], kind_ids: Sequence[int]) -> None:
    ids = sorted(set(node_ids))
    if ids and kind_ids:
        await conn.execute(
            "UPDATE node SET kind_ids = kind_ids || ARRAY(SELECT k FROM unnest(%s::smallint[]) WITH ORDINALITY "
            "AS t(k, o) WHERE NOT k = ANY(kind_ids) ORDER BY o) WHERE id = ANY(%s::bigint[])",
            (list(kind_ids), ids))


async def remove_labels(conn: psycopg.AsyncConnection, node_ids: Iterable[int], kind_ids: Sequence[int]) -> None:
    ids = sorted(set(node_ids))
    if ids and kind_ids:
        await conn.execute(
            "UPDATE node SET kind_ids = ARRAY(SELECT k FROM unnest(kind_ids) WITH ORDINALITY AS t(k, o) "
            "WHERE NOT k = ANY(%s::smallint[]) ORDER BY o) WHERE id = ANY(%s::bigint[])", (list(kind_ids), ids))


async def delete(conn: psycopg.AsyncConnection, node_ids: Iterable[int], edge_ids: Iterable[int], *,
                 detach: bool) -> None:
    nodes, edges = sorted(set(node_ids)), sorted(set(edge_ids))
    if nodes and not detach:
        cursor = await conn.execute(
            "SELECT n FROM unnest(%s::bigint[]) AS n WHERE EXISTS (SELECT 1 FROM edge WHERE (start_id = n OR "
            "end_id = n) AND NOT id = ANY(%s::bigint[])) LIMIT 1", (nodes, edges))
        if (blocked := await cursor.fetchone()) is not None:
            raise NodeHasRelationships(int(blocked[0]))
    if edges:
        await conn.execute("DELETE FROM edge WHERE id = ANY(%s::bigint[])", (edges,))
    if nodes:
        # The node table's statement trigger removes the edges of deleted nodes (DETACH).
        await conn.execute("DELETE FROM node WHERE id = ANY(%s::bigint[])", (nodes,))
