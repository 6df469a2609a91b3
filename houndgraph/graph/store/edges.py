"""Edge writes: new edges straight into the table, the others through the staged upsert.

The staged upsert (binary COPY into a temporary table, then one `INSERT ... ON CONFLICT` sorted by
key) is the fastest way the store benchmark found, and the one way edges are upserted by (start, kind,
end): ingest, the analysis rules that add single edges and Cypher's CREATE all go through it.
"""

from __future__ import annotations

from collections.abc import Iterable

import psycopg
from psycopg import postgres
from psycopg.adapt import Dumper
from psycopg.pq import Format

from houndgraph.graph.connection import GraphConnection
from houndgraph.graph.kind_catalogue import KindCatalogue
from houndgraph.graph.store import sql
from houndgraph.graph.store.merge import PreparedBatch
from houndgraph.graph.store.nodes import WrittenNodes

_JSONB_BINARY_VERSION = b"\x01"
# (start_id, end_id, kind_id, properties as JSON text): a row of the staging table.
StagedEdge = tuple[int, int, int, str]


class _EncodedJson(str):
    """JSON text to store as jsonb; only a key for the dumper below (rows carry plain strings)."""


class _EncodedJsonbDumper(Dumper):
    """A jsonb value already encoded as JSON text, sent in jsonb's binary form (a version byte)."""

    format = Format.BINARY
    oid = postgres.types["jsonb"].oid

    def dump(self, obj: str) -> bytes:
        return _JSONB_BINARY_VERSION + obj.encode()


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
    if fresh:
        fresh.sort()
        cursor = conn.cursor()
        cursor.adapters.register_dumper(_EncodedJson, _EncodedJsonbDumper)
        with cursor.copy(sql.COPY_NEW_EDGES) as copy:
            copy.set_types(sql.NEW_EDGE_TYPES)
            for row in fresh:
                copy.write_row(row)
    if others:
        upsert_edges(conn, others)
    return len(prepared.edge_rows)


def upsert_edges(conn: psycopg.Connection, edges: Iterable[StagedEdge]) -> None:
    """Creates each (start, kind, end) edge, or merges its properties into the stored one (`stored ||
    new`). The keys must be distinct: one statement cannot update a row twice."""
    conn.execute(sql.STAGE_EDGE)
    conn.execute(sql.CLEAR_STAGED_EDGES)
    with conn.cursor().copy(sql.COPY_EDGES) as copy:
        copy.set_types(sql.STAGE_EDGE_TYPES)
        for row in edges:
            copy.write_row(row)
    conn.execute(sql.UPSERT_EDGES)


async def upsert_edges_returning_ids(conn: GraphConnection, edges: Iterable[StagedEdge]
                                     ) -> dict[tuple[int, int, int], int]:
    """`upsert_edges` on the request's connection; returns the edge id of each (start, kind, end)."""
    await conn.execute(sql.STAGE_EDGE)
    await conn.execute(sql.CLEAR_STAGED_EDGES)
    async with conn.cursor().copy(sql.COPY_EDGES) as copy:
        copy.set_types(sql.STAGE_EDGE_TYPES)
        for row in edges:
            await copy.write_row(row)
    await conn.execute(sql.UPSERT_EDGES)
    cursor = await conn.execute(sql.STAGED_EDGE_IDS)
    return {(start, kind_id, end): edge_id for start, kind_id, end, edge_id in await cursor.fetchall()}
