"""Edge writes: new edges straight into the table, the others through the staged upsert.

The staged upsert (COPY into a temporary table, then one `INSERT ... ON CONFLICT` sorted by
key) is the fastest way the store benchmark found, and the one way edges are upserted by (start, kind,
end): ingest, the analysis rules that add single edges and Cypher's CREATE all go through it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import orjson
import psycopg

from houndgraph.graph.connection import GraphConnection
from houndgraph.graph.kind_catalogue import KindCatalogue
from houndgraph.graph.store import sql
from houndgraph.graph.store.merge import PreparedBatch
from houndgraph.graph.store.nodes import WrittenNodes

# (start_id, end_id, kind_id, properties as JSON text): a row of the staging table.
StagedEdge = tuple[int, int, int, str]


def copy_text(rows: Iterable[StagedEdge]) -> bytes:
    """Rows in COPY's text format, built in one piece: a write per row cost a third of the Python time of
    writing an edge. JSON text holds no raw tab or newline (JSON escapes them), and ids hold no backslash,
    so doubling every backslash of the whole text is all the escaping needed."""
    text = "".join([f"{start}\t{end}\t{kind}\t{props}\n" for start, end, kind, props in rows])
    return (text.replace("\\", "\\\\") if "\\" in text else text).encode()


def write_edges(
    conn: psycopg.Connection, catalogue: KindCatalogue, prepared: PreparedBatch, nodes: WrittenNodes
) -> int:
    """Write the batch's edges, every end already a node; returns how many."""
    names = sorted({row[1] for row in prepared.edge_rows})
    kind_ids = dict(zip(names, catalogue.ids(names), strict=True))
    node_ids, created = nodes.ids, nodes.created
    fresh: list[StagedEdge] = []
    others: list[StagedEdge] = []
    for start, kind, end, properties in prepared.edge_rows:
        start_id, end_id = node_ids[start], node_ids[end]
        row = (start_id, end_id, kind_ids[kind], properties)
        # An edge touching a node this batch created cannot exist yet (batch duplicates are merged):
        # it is copied straight into the table, skipping the staging table and the conflict check.
        (fresh if start_id in created or end_id in created else others).append(row)
    if others:
        # Nor can an edge into a node no stored edge of its kind enters, or out of one none of its kind
        # leaves: so the edges of objects an earlier file only named (children an OU lists, members of a
        # group, placeholders) are copied as well. COPY inserts rows in bulk; the upsert inserts them one at
        # a time, at about twice the cost.
        entered = _stored_pairs(conn, sql.ENTERED, {(end_id, kind_id) for _, end_id, kind_id, _ in others})
        others = _split(others, fresh, lambda row: (row[1], row[2]) in entered)
        left = _stored_pairs(conn, sql.LEFT, {(start_id, kind_id) for start_id, _, kind_id, _ in others})
        others = _split(others, fresh, lambda row: (row[0], row[2]) in left)
    if fresh:
        fresh.sort()
        with conn.cursor().copy(sql.COPY_NEW_EDGES) as copy:
            copy.write(copy_text(fresh))
    if others:
        upsert_edges(conn, others)
    return len(prepared.edge_rows)


def _stored_pairs(conn: psycopg.Connection, query: str, pairs: set[tuple[int, int]]) -> set[tuple[int, int]]:
    if not pairs:
        return set()
    return set(conn.execute(query, {"pairs": orjson.dumps(sorted(pairs)).decode()}).fetchall())


def _split(rows: list[StagedEdge], fresh: list[StagedEdge], may_exist: Callable[[StagedEdge], bool]
           ) -> list[StagedEdge]:
    """Moves the rows that cannot exist to `fresh`; returns the others."""
    kept: list[StagedEdge] = []
    for row in rows:
        (kept if may_exist(row) else fresh).append(row)
    return kept


def upsert_edges(conn: psycopg.Connection, edges: Iterable[StagedEdge]) -> None:
    """Creates each (start, kind, end) edge, or merges its properties into the stored one (`stored ||
    new`). The keys must be distinct: one statement cannot update a row twice."""
    conn.execute(sql.STAGE_EDGE)
    conn.execute(sql.CLEAR_STAGED_EDGES)
    with conn.cursor().copy(sql.COPY_EDGES) as copy:
        copy.write(copy_text(edges))
    conn.execute(sql.UPSERT_EDGES)


async def upsert_edges_returning_ids(conn: GraphConnection, edges: Iterable[StagedEdge]
                                     ) -> dict[tuple[int, int, int], int]:
    """`upsert_edges` on the request's connection; returns the edge id of each (start, kind, end)."""
    await conn.execute(sql.STAGE_EDGE)
    await conn.execute(sql.CLEAR_STAGED_EDGES)
    async with conn.cursor().copy(sql.COPY_EDGES) as copy:
        await copy.write(copy_text(edges))
    await conn.execute(sql.UPSERT_EDGES)
    cursor = await conn.execute(sql.STAGED_EDGE_IDS)
    return {(start, kind_id, end): edge_id for start, kind_id, end, edge_id in await cursor.fetchall()}
