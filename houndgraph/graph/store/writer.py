"""GraphStore: bulk writes of record batches into the node and edge tables."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import nullcontext
from datetime import datetime
from functools import partial

import psycopg
from psycopg import pq

from houndgraph.graph.kind_catalogue import KindCatalogue
from houndgraph.graph.records import Batch
from houndgraph.graph.store import sql
from houndgraph.graph.store.edges import write_edges
from houndgraph.graph.store.encoding import rfc3339
from houndgraph.graph.store.merge import PreparedBatch, prepare_batch
from houndgraph.graph.store.nodes import NodeWriter
from houndgraph.graph.store.read_ahead import ReadAhead, bulk_tuning
from houndgraph.graph.store.stats import WriteStats


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
        # Whether the inbound edge index exists in this transaction (`bulk.py` may have deferred it).
        self._inbound_index = True

    def kind_ids(self, names: Iterable[str]) -> list[int]:
        """Ids of kind names, creating missing kinds (in the current transaction)."""
        self._begin()
        return self._catalogue.ids(names)

    def write(self, batch: Batch, *, seen_at: datetime) -> WriteStats:
        """Write one batch: deletions first, then node records, then edges (with placeholder ends)."""
        lastseen = rfc3339(seen_at)
        return self._apply(prepare_batch(batch, lastseen), lastseen)

    def write_all(
        self,
        batches: Iterable[Batch],
        *,
        seen_at: datetime,
        on_batch: Callable[[WriteStats], None] | None = None,
    ) -> WriteStats:
        """`write` every batch, reading and preparing the next ones in a second thread meanwhile.

        Same result as calling `write` in a loop, in about the time of the slower of reading and writing
        rather than their sum; the interpreter is tuned for bulk work meanwhile (`read_ahead.bulk_tuning`).
        `batches` is iterated in that thread (a reader's generator is fine; it is closed if writing
        fails). `on_batch` runs in the calling thread after each batch; an exception it raises (e.g. a
        stop request) stops the reading and propagates.
        """
        lastseen = rfc3339(seen_at)
        with (
            bulk_tuning(),
            ReadAhead(batches, partial(prepare_batch, lastseen=lastseen), depth=2) as prepared_batches,
        ):
            return self.write_prepared(prepared_batches, seen_at=seen_at, on_batch=on_batch)

    def write_prepared(
        self,
        prepared_batches: Iterable[PreparedBatch],
        *,
        seen_at: datetime,
        on_batch: Callable[[WriteStats], None] | None = None,
    ) -> WriteStats:
        """Write batches that `merge.prepare_batch` prepared with the same `seen_at`, e.g. in another process
        (`PreparedBatch.for_writer`); `on_batch` as for `write_all`."""
        lastseen = rfc3339(seen_at)
        total = WriteStats()
        with bulk_tuning():
            for prepared in prepared_batches:
                stats = self._apply(prepared, lastseen)
                total += stats
                if on_batch is not None:
                    on_batch(stats)
        return total

    def _apply(self, prepared: PreparedBatch, lastseen: str) -> WriteStats:
        # A batch is a transaction of its own only outside one: inside the caller's (the datapipe's task), a
        # nested `transaction()` would be a savepoint and its release per batch, two round trips for nothing.
        outside = self._conn.autocommit and self._conn.info.transaction_status == pq.TransactionStatus.IDLE
        with self._conn.transaction() if outside else nullcontext():
            self._begin()
            stats = WriteStats(records=prepared.source_records, nodes=len(prepared.record_ids))
            if prepared.source_kinds:
                self._conn.execute(sql.REGISTER_SOURCE_KINDS, (prepared.source_kinds,))
            if prepared.deletions:
                stats.deleted = self._nodes.delete(prepared.deletions)
            nodes = self._nodes.write(prepared, lastseen, stats)
            if prepared.name_edges:
                nodes.ids.update(self._nodes.resolve_names(prepared, stats))
                prepared.encode_edges(lastseen)
            if prepared.edge_rows:
                stats.edges = write_edges(self._conn, self._catalogue, prepared, nodes,
                                          inbound_index=self._inbound_index)
        return stats

    def _begin(self) -> None:
        """Take the writer lock; on a new transaction, forget what the last one cached and create the
        node staging table (both may have been rolled back with it; `upsert_edges` creates its own)."""
        row = self._conn.execute(sql.BEGIN_WRITE, (sql.WRITE_LOCK_ID,)).fetchone()
        assert row is not None
        if row[0] != self._transaction:
            self._transaction, self._inbound_index = row
            self._catalogue.reset()
            self._nodes.cache.clear()
            self._conn.execute(sql.PREPARE_TRANSACTION)

