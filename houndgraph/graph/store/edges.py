"""Edge writes: new edges straight into the table, the others through a staged upsert."""

from __future__ import annotations

import psycopg
from psycopg import postgres
from psycopg.adapt import Dumper
from psycopg.pq import Format

from houndgraph.graph.kind_catalogue import KindCatalogue
from houndgraph.graph.store import sql
from houndgraph.graph.store.merge import PreparedBatch
from houndgraph.graph.store.nodes import WrittenNodes

_JSONB_BINARY_VERSION = b"\x01"


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
    fresh: list[tuple[int, int, int, str]] = []
    others: list[tuple[int, int, int, str]] = []
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
        conn.execute(sql.CLEAR_STAGED_EDGES)
        with conn.cursor().copy(sql.COPY_EDGES) as copy:
            copy.set_types(sql.STAGE_EDGE_TYPES)
            for row in others:
                copy.write_row(row)
        conn.execute(sql.UPSERT_EDGES)
    return len(prepared.edge_rows)
