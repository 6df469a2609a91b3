"""The edge table copied out of PostgreSQL for an `EdgeProjection`, with the edge generation it holds.

One REPEATABLE READ transaction reads the generation (migration 0032) and then the edges, so the copy is exactly the
graph that generation names. The edges come as binary COPY rows of fixed size (three non-null fields), read into
arrays a chunk at a time, never as Python objects.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import psycopg

from houndgraph.graph.projection.csr import EdgeProjection

# The generation's name, as a request reads it at its start (`houndgraph.db.START_REQUEST`).
VERSION = "SELECT database_id::text || '.' || generation FROM edge_generation"
COPY_EDGES = "COPY (SELECT start_id, kind_id, end_id FROM edge) TO STDOUT (FORMAT binary)"

# A binary COPY row of (bigint, smallint, bigint): field count, then each field's length and value.
ROW = np.dtype([("fields", ">i2"), ("start_size", ">i4"), ("start", ">i8"), ("kind_size", ">i4"), ("kind", ">i2"),
                ("end_size", ">i4"), ("end", ">i8")])
HEADER_SIZE = 19  # signature (11 bytes), flags (4), header extension length (4, zero)
TRAILER_SIZE = 2  # field count -1


def current_version(conn: psycopg.Connection[Any]) -> str:
    row = conn.execute(VERSION).fetchone()
    assert row is not None, "migration 0032 writes the one row"
    return str(row[0])


def read_projection(conn: psycopg.Connection[Any]) -> tuple[str, EdgeProjection]:
    """The edges of `conn`'s database as a projection, and the version they are. `conn` is idle; its transaction
    is ended here."""
    conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
    conn.read_only = True
    with conn.transaction():
        version = current_version(conn)
        starts, kinds, ends = _edges(conn)
    return version, EdgeProjection.from_edges(starts, kinds, ends)


def _edges(conn: psycopg.Connection[Any]) -> tuple[Any, Any, Any]:
    parts: list[np.ndarray[Any, Any]] = []
    pending = bytearray()
    skip = HEADER_SIZE
    with conn.cursor().copy(COPY_EDGES) as copy:
        for chunk in copy:
            pending += chunk
            if skip:
                if len(pending) < skip:
                    continue
                del pending[:skip]
                skip = 0
            whole = len(pending) // ROW.itemsize * ROW.itemsize
            if whole:
                parts.append(_columns(bytes(pending[:whole])))
                del pending[:whole]
    if len(pending) != TRAILER_SIZE:
        raise ValueError(f"unexpected end of the edge copy ({len(pending)} bytes left)")
    rows = np.concatenate(parts) if parts else np.zeros(0, dtype=[("start", "i8"), ("kind", "i2"), ("end", "i8")])
    return rows["start"], rows["kind"], rows["end"]


def _columns(data: bytes) -> np.ndarray[Any, Any]:
    rows = np.frombuffer(data, dtype=ROW)
    out = np.empty(len(rows), dtype=[("start", "i8"), ("kind", "i2"), ("end", "i8")])
    out["start"], out["kind"], out["end"] = rows["start"], rows["kind"], rows["end"]
    return out
