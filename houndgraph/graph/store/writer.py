"""GraphStore: bulk writes of record batches into the node and edge tables."""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from datetime import datetime
from functools import partial

import psycopg

from houndgraph.graph.records import Batch
from houndgraph.graph.store import sql
from houndgraph.graph.store.catalogue import KindCatalogue
from houndgraph.graph.store.edges import write_edges
from houndgraph.graph.store.encoding import rfc3339
from houndgraph.graph.store.merge import PreparedBatch, prepare_batch
from houndgraph.graph.store.nodes import NodeWriter
from houndgraph.graph.store.pipeline import ReadAhead
from houndgraph.graph.store.stats import WriteStats

# Sorting a staged batch (edges with their properties) in memory rather than in temporary files.
_WORK_MEM = "64MB"
# Interpreter settings while `write_all` runs (see `_bulk_tuning`).
_SWITCH_INTERVAL = 0.001
_GC_THRESHOLD = (100_000, 50, 100)


class GraphStore:
    """Writes batches of node and edge records in the caller's transaction.

    The caller owns the transaction (one ingest task = one transaction) and commits it; on a connection
    in autocommit mode each `write` runs in a transaction of its own. One store per connection: it
    keeps per-transaction caches (kind ids, node ids of objects already written), reset whenever it
    sees a new transaction. Each `write` stages the batch with COPY and applies it with set-based
    upserts, keys sorted; it raises `work_mem` for the rest of the transaction so a staged batch sorts
    in memory.

    Writers are serialised per database with a transaction-scoped advisory lock (`sql.WRITE_LOCK_ID`,
    also taken by analysis): an ingest task spans many batches in one transaction, and sorting inside
    a batch cannot order row locks across batches, so two unserialised tasks touching the same objects
    could deadlock. A second writer waits for the first to commit. Anything else that writes nodes
    while a store is in use must take the same lock: the node cache trusts that nobody else does, and
    edges have no row-level foreign keys (see migration 0005).
    """

    def __init__(self, conn: psycopg.Connection) -> None:
        self._conn = conn
        self._catalogue = KindCatalogue(conn)
        self._nodes = NodeWriter(conn, self._catalogue)
        self._transaction: str | None = None

    def kind_ids(self, names: Iterable[str]) -> list[int]:
        """Ids of kind names, creating missing kinds (in the current transaction)."""
        self._begin()
        return self._catalogue.ids(names)

    def write(self, batch: Batch, *, seen_at: datetime) -> WriteStats:
        """Write one batch: deletions first, then node records, then edges (with placeholder ends)."""
        lastseen = rfc3339(seen_at)
        return self._apply(batch, prepare_batch(batch, lastseen), lastseen)

    def write_all(
        self,
        batches: Iterable[Batch],
        *,
        seen_at: datetime,
        on_batch: Callable[[WriteStats], None] | None = None,
    ) -> WriteStats:
        """`write` every batch, reading and preparing the next ones in a second thread meanwhile.

        Same result as calling `write` in a loop, in about the time of the slower of reading and
        writing rather than their sum; the interpreter is tuned for bulk work meanwhile (`_bulk_tuning`).
        `batches` is iterated in that thread (a reader's generator is fine; it is closed if writing
        fails). `on_batch` runs in the calling thread after each batch;
        an exception it raises (e.g. a stop request) stops the reading and propagates.
        """
        lastseen = rfc3339(seen_at)
        total = WriteStats()
        with (
            _bulk_tuning(),
            ReadAhead(batches, partial(_with_prepared, lastseen=lastseen), depth=2) as prepared_batches,
        ):
            for batch, prepared in prepared_batches:
                stats = self._apply(batch, prepared, lastseen)
                total += stats
                if on_batch is not None:
                    on_batch(stats)
        return total

    def _apply(self, batch: Batch, prepared: PreparedBatch, lastseen: str) -> WriteStats:
        with self._conn.transaction() if self._conn.autocommit else nullcontext():
            self._begin()
            stats = WriteStats(nodes=len(prepared.records))
            if batch.deletions:
                stats.deleted = self._nodes.delete(batch.deletions)
            nodes = self._nodes.write(prepared, lastseen, stats)
            if prepared.name_edges:
                nodes.ids.update(self._nodes.resolve_names(prepared, stats))
                prepared.encode_edges(lastseen)
            if prepared.edge_rows:
                stats.edges = write_edges(self._conn, self._catalogue, prepared, nodes)
        return stats

    def _begin(self) -> None:
        """Take the writer lock; on a new transaction, forget what the last one cached and create the
        staging tables (both may have been rolled back with it)."""
        row = self._conn.execute(sql.BEGIN_WRITE, (sql.WRITE_LOCK_ID,)).fetchone()
        assert row is not None
        if row[0] != self._transaction:
            self._transaction = row[0]
            self._catalogue.reset()
            self._nodes.cache.clear()
            self._conn.execute(sql.STAGE_NODE)
            self._conn.execute(sql.STAGE_EDGE)
            self._conn.execute(sql.RAISE_WORK_MEM, {"work_mem": _WORK_MEM})


def _with_prepared(batch: Batch, lastseen: str) -> tuple[Batch, PreparedBatch]:
    return batch, prepare_batch(batch, lastseen)


_tuning_lock = threading.Lock()
_tuning_users = 0
_saved_switch_interval = 0.0
_saved_gc_threshold: tuple[int, int, int] = (0, 0, 0)


@contextmanager
def _bulk_tuning() -> Iterator[None]:
    """Interpreter settings for the length of a `write_all`, measured on 100,000 objects.

    - Threads hand over the interpreter every millisecond instead of every five: the writing thread
      returns from PostgreSQL a dozen times per batch and must each time take the interpreter back
      from the reading thread, which is always busy; at five milliseconds that waiting cost a quarter
      of the ingest time.
    - The cyclic garbage collector runs a hundred times less often: a batch is a few hundred thousand
      short-lived objects (records, their dicts and tuples, all freed by reference counting), and the
      default thresholds made the collector traverse them again and again, 7 of the 17 s that reading
      and preparing took.
    Both are process-wide, so nested and concurrent uses share one saved value and the last restores it.
    """
    global _tuning_users, _saved_switch_interval, _saved_gc_threshold
    with _tuning_lock:
        if _tuning_users == 0:
            _saved_switch_interval = sys.getswitchinterval()
            _saved_gc_threshold = gc.get_threshold()
            sys.setswitchinterval(min(_saved_switch_interval, _SWITCH_INTERVAL))
            gc.set_threshold(
                *(max(saved, bulk) for saved, bulk in zip(_saved_gc_threshold, _GC_THRESHOLD, strict=True))
            )
        _tuning_users += 1
    try:
        yield
    finally:
        with _tuning_lock:
            _tuning_users -= 1
            if _tuning_users == 0:
                sys.setswitchinterval(_saved_switch_interval)
                gc.set_threshold(*_saved_gc_threshold)
