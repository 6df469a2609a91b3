"""The edge table copied out of PostgreSQL for an `EdgeProjection`, with the edge generation it holds.

One REPEATABLE READ transaction reads the generation (migration 0032) and then the edges, so the copy is exactly the
graph that generation names. PostgreSQL packs the edges into a few hundred binary strings of fixed-size records
(start id, kind id, end id, big-endian), which become arrays without a Python object per edge: COPY would send
a message per edge, and reading 1.3M messages took 3.9 s where the strings take 1.4 s (100k objects, load 8-10).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import psycopg

from houndgraph.graph.projection.csr import EdgeProjection

# The generation's name, as a request reads it at its start (`houndgraph.db.START_REQUEST`).
VERSION = "SELECT database_id::text || '.' || generation FROM edge_generation"
# Up to 65 536 edges per string (about 1.2 MB).
PACKED_EDGES = ("SELECT string_agg(int8send(start_id) || int2send(kind_id) || int8send(end_id), ''::bytea) "
                "FROM edge GROUP BY id >> 16")
RECORD = np.dtype([("start", ">i8"), ("kind", ">i2"), ("end", ">i8")])


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
        starts, kinds, ends = read_edges(conn)
    return version, EdgeProjection.from_edges(starts, kinds, ends)


def read_edges(conn: psycopg.Connection[Any]) -> tuple[Any, Any, Any]:
    """Every edge's start id, kind id and end id, as three arrays. `conn` is in a transaction.

    The strings come a few at a time (a cursor of the server's), and each becomes its three columns at once: read
    whole, the result (in libpq), its strings, their records and the columns held the edges four times over (the
    build's peak growth 90 MiB at 100k objects, 66 MiB this way, where sorting the node ids is the peak)."""
    starts, kinds, ends = [], [], []
    # The plan of a plain query (one pass over the table), not one that returns its first rows soonest.
    conn.execute("SET LOCAL cursor_tuple_fraction = 1")
    with conn.cursor("edge_projection", binary=True) as cursor:
        cursor.itersize = 16
        cursor.execute(PACKED_EDGES)
        for (packed,) in cursor:
            records = np.frombuffer(packed, dtype=RECORD)
            starts.append(records["start"].astype(np.int64))
            kinds.append(records["kind"].astype(np.int16))
            ends.append(records["end"].astype(np.int64))
    return _joined(starts, np.int64), _joined(kinds, np.int16), _joined(ends, np.int64)


def _joined(parts: list[Any], dtype: Any) -> Any:
    """The parts as one array; the list is emptied, so each part is freed once copied."""
    joined = np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)
    parts.clear()
    return joined
