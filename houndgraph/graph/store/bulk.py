"""Bulk mode: indexes that a large ingest job builds once after its files rather than row by row.

Every node the writer inserts or updates adds entries to each node index; for the two GIN indexes and the
reverse object id index that upkeep is over a third of the node upsert's time, and none of them is used by
the writer. Measured at 300k objects (`bench/ingest.py --index-after`): the node upsert 36.6 -> 23.1 s and
the placeholder upsert 4.1 -> 1.4 s of server time, PostgreSQL CPU of the ingest 67.3 -> 54.1 s, against 4.0 s
to build the three after the job (CREATE INDEX sorts once, in bulk, and the results are a third the size).

So a job whose documents are large against the graph already stored drops them (`defer`) and builds them
again (`rebuild`) after its files, before the analysis reads the graph. Dropping an index and recording its
definition in `deferred_index` (migration 0028) are one transaction, as are building it and forgetting it:
after a crash the table names exactly the missing indexes, and the datapipe's next start builds them.
Meanwhile queries stay correct, only slower: by kind or by name fragment they scan the table.

The inbound edge index (end, kind, start) is deferred as well: every edge the writer copies adds an entry to it at
a random place (edges are copied in start order), the second largest index of the graph. The writer reads it only
to tell, for some edges, that no stored edge of their kind enters their end (so they are copied, not upserted);
without it, `edges.write_edges` looks up by key, in the unique index, the edges the outbound side leaves in doubt
(at 300k objects, without that look-up, 658k more edges were upserted: as much work again as the index saved).
Measured at 1M objects (`bench/ingest.py --objects 1000000 --bulk --statements`, two runs side by side, load
12-20): PostgreSQL CPU of the ingest 234.5 -> 216.0 s, its build (16.9 s) included, WAL 7.00 -> 6.51 GB, the index
588 -> 452 MB; every one of the 11.1M edges new to the graph was copied. Meanwhile an inbound walk scans the edge
table, and so does deleting nodes (their edges go with them), once per statement.

The inbound edge index is built after the analysis's rules rather than before them (`AFTER_RULES`): the rules
add edges of their own (Owns, AdminTo, ...: 14 % more at 100k objects) at places all over it, and a freshly built
index has a tenth of each page free, so most of its pages split and it ended 61 % full (77 MB against 52 MB built
after them; 775 MB at 1M objects). The rules do without it (2.6 s against 3.0 s at 100k); the closing steps do not
(zones and findings walk edges inbound: 62 s of analysis instead of 7 without it), so the datapipe builds it in
the analysis's transaction between the two, or at the end of its tick when no analysis did.

The writer keeps what it reads itself: the object id keys (upserts, look-ups), the name index (OpenGraph
name ends) and the unique edge index (start, kind, end: whether an edge exists).
"""

from __future__ import annotations

import psycopg
from psycopg import errors

# Kind ids (GIN), name trigrams (GIN) and the reversed object id (ENDS WITH): used by queries, not the writer. The
# inbound edge index (end, kind, start): the writer probes it only to copy rather than upsert a few edges, and does
# without it while it is missing (`edges.write_edges`).
DEFERRABLE = ("edge_end_kind_start_idx", "node_kind_ids_idx", "node_name_trgm_idx", "node_objectid_reverse_idx")
# Built after the analysis's rules, not before them (see above); the others before the analysis.
AFTER_RULES = ("edge_end_kind_start_idx",)
BEFORE_ANALYSIS = tuple(name for name in DEFERRABLE if name not in AFTER_RULES)
# A job defers them when its documents hold at least this many bytes (about 30k objects of SharpHound data)
# and at least as many as the node table: building the indexes costs about a quarter of keeping them per node
# (a node record is about a third as large in the table as in its document).
MIN_BYTES = 64 << 20
# Dropping an index waits for the queries reading the table; a job that cannot have it soon keeps the index.
_LOCK_TIMEOUT = "5s"

_EXISTING = """
SELECT i.relname, pg_get_indexdef(i.oid)
FROM pg_class i JOIN pg_namespace n ON n.oid = i.relnamespace
WHERE n.nspname = current_schema() AND i.relkind = 'i' AND i.relname = ANY(%s)
ORDER BY i.relname
"""


def worth_deferring(conn: psycopg.Connection, document_bytes: int, min_bytes: int = MIN_BYTES) -> bool:
    """Whether a job with documents of `document_bytes` (uncompressed) should defer the indexes."""
    if document_bytes < min_bytes:
        return False
    row = conn.execute("SELECT pg_table_size('node')").fetchone()
    return row is not None and document_bytes >= int(row[0])


def defer(conn: psycopg.Connection, names: tuple[str, ...] = DEFERRABLE, lock_timeout: str = _LOCK_TIMEOUT
          ) -> list[str]:
    """Drop the indexes that exist, recording their definitions; returns the names dropped. Gives up (and drops
    nothing) when a query keeps the node table for longer than a few seconds."""
    try:
        with conn.transaction():
            conn.execute("SELECT set_config('lock_timeout', %s, true)", (lock_timeout,))
            existing = conn.execute(_EXISTING, (list(names),)).fetchall()
            for name, definition in existing:
                conn.execute("INSERT INTO deferred_index (name, definition) VALUES (%s, %s)", (name, definition))
                conn.execute(f'DROP INDEX "{name}"')  # a name read from the catalogue above
    except errors.LockNotAvailable:
        return []
    return [name for name, _ in existing]


def deferred(conn: psycopg.Connection) -> list[str]:
    return [row[0] for row in conn.execute("SELECT name FROM deferred_index ORDER BY name")]


def rebuild(conn: psycopg.Connection, names: tuple[str, ...] = DEFERRABLE) -> list[str]:
    """Build those of `names` that are deferred again, each in a transaction with forgetting it; returns their
    names."""
    built = []
    for name in deferred(conn):
        if name not in names:
            continue
        with conn.transaction():
            row = conn.execute("SELECT definition FROM deferred_index WHERE name = %s FOR UPDATE", (name,)).fetchone()
            if row is None:
                continue
            # Sorting a whole table's keys in memory where it fits.
            conn.execute("SELECT set_config('maintenance_work_mem', '256MB', true)")
            conn.execute(row[0].replace("CREATE INDEX ", "CREATE INDEX IF NOT EXISTS ", 1))
            conn.execute("DELETE FROM deferred_index WHERE name = %s", (name,))
        built.append(name)
    return built
