"""The datapipe's writer path alone: the prepared batches of the synthetic collection written into a fresh database.

    .venv/bin/python bench/writer.py [--objects 100000] [--batch-size 20000] [--keep DIR] [--preloaded]

Reads and prepares each file of `sharphound_collection.py`'s collection (in the datapipe's reading order) as the
reading process does, and pickles each batch as it sends it; then writes the files into a fresh embedded PostgreSQL, one
transaction per file, as `datapipe.task_writer.write_task` does: a thread of this process takes in (unpickles) the
next batches while `GraphStore.write_prepared` writes this one. The reading itself is not measured, so the figures
are the writer's: per file and in all, the wall time, the CPU of the writing thread, of the taking-in thread and of
the PostgreSQL backend, and the wall time neither the writing thread nor the backend used the CPU ("idle": the
writing thread waiting for the interpreter lock while the other thread holds it, and both waiting for the machine).
`--preloaded` unpickles every batch of a file before writing it (no second thread): the same writes with nothing
to wait for but the backend.

Code under test is whatever `houndgraph` imports: `PYTHONPATH=OTHER_CHECKOUT .venv/bin/python bench/writer.py`
measures another checkout's writer with the same script (run the two alternately).
"""

from __future__ import annotations

import argparse
import os
import pickle
import platform
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from processes import cpu  # bench/processes.py
from sharphound_collection import Layout, write_collection  # bench/sharphound_collection.py

import houndgraph
from houndgraph.db import Database
from houndgraph.graph.kind_catalogue import KindCatalogue
from houndgraph.graph.store import GraphStore, WriteStats, rfc3339
from houndgraph.graph.store.read_ahead import ReadAhead, bulk_tuning
from houndgraph.ingest import IngestFile
from houndgraph.settings import Settings
from houndgraph.worker.loop_repository import SHARPHOUND_READING_ORDER
from houndgraph.worker.read_process import read_prepared


def pickled_batches(path: Path, lastseen: str, batch_size: int) -> list[bytes]:
    """The file's batches as the reading process sends them (`read_process.serve`)."""
    document = IngestFile(name=path.name, parent_name=None, open=lambda: path.open("rb"))
    with bulk_tuning():
        return [pickle.dumps(("batch", batch), protocol=pickle.HIGHEST_PROTOCOL)
                for batch in read_prepared(document, lastseen=lastseen, batch_size=batch_size)]


class TakeIn:
    """Unpickles a batch as `ReadingProcess.read` does and takes it in as `write_task` does, counting the CPU of the
    thread that does it."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def __call__(self, data: bytes) -> object:
        started = time.thread_time()
        tag, batch = pickle.loads(data)
        assert tag == "batch"
        # What the datapipe's taking-in thread does with it (code before `PreparedBatch.take_in`: nothing).
        taken = getattr(batch, "take_in", lambda: batch)()
        self.seconds += time.thread_time() - started
        return taken


def write_file(database: Database, batches: list[bytes], seen_at: datetime, preloaded: bool) -> list[float]:
    """Wall, writing thread, taking-in thread and backend seconds of writing one file in one transaction."""
    take_in = TakeIn()
    with database.connect_raw() as conn:
        row = conn.execute("SELECT pg_backend_pid()").fetchone()
        backend = int(row[0]) if row else 0
        KindCatalogue(conn).all()
        conn.commit()
        backend_before = cpu(backend, reaped=False)
        store = GraphStore(conn)
        started, thread_started = time.perf_counter(), time.thread_time()
        if preloaded:
            prepared = [take_in(data) for data in batches]
            take_in_seconds = take_in.seconds
            started, thread_started = time.perf_counter(), time.thread_time()
            stats = store.write_prepared(prepared, seen_at=seen_at)  # type: ignore[arg-type]
        else:
            with ReadAhead(batches, take_in) as prepared_batches:
                stats = store.write_prepared(prepared_batches, seen_at=seen_at)  # type: ignore[arg-type]
            take_in_seconds = take_in.seconds
        conn.commit()
        wall, writer = time.perf_counter() - started, time.thread_time() - thread_started
        backend_cpu = cpu(backend, reaped=False) - backend_before
    assert isinstance(stats, WriteStats)
    return [wall, writer, take_in_seconds, backend_cpu, float(stats.edges)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=100_000)
    parser.add_argument("--batch-size", type=int, default=20_000, help="records per batch (the datapipe's)")
    parser.add_argument("--keep", type=Path, help="write the collection here, or take it from here if it is there")
    parser.add_argument("--preloaded", action="store_true", help="unpickle each file's batches before writing it")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="hg-bench-writer-", dir="/tmp") as scratch:
        files_dir = args.keep or Path(scratch) / "collection"
        paths = sorted(files_dir.glob("*.json")) if files_dir.exists() else []
        if not paths:
            files_dir.mkdir(parents=True, exist_ok=True)
            paths = write_collection(Layout.of(args.objects), files_dir)
        paths.sort(key=lambda path: SHARPHOUND_READING_ORDER.index(path.stem.rsplit("_", 1)[1]))
        seen_at = datetime.now(UTC)
        started = time.perf_counter()
        files = [(path, pickled_batches(path, rfc3339(seen_at), args.batch_size)) for path in paths]
        size = sum(len(data) for _, batches in files for data in batches)
        print(f"prepared {len(paths)} files in {time.perf_counter() - started:.1f} s: "
              f"{sum(len(batches) for _, batches in files)} batches, {size / 1e6:.0f} MB pickled")
        print(f"code under test: {Path(houndgraph.__file__).parent}")

        database = Database.open(Settings(data_dir=Path(scratch) / "db"))
        totals = [0.0] * 5
        try:
            database.migrate()
            load_before = os.getloadavg()[0]
            with bulk_tuning():
                for path, batches in files:
                    figures = write_file(database, batches, seen_at, args.preloaded)
                    totals = [total + figure for total, figure in zip(totals, figures, strict=True)]
                    _print(path.stem.rsplit("_", 1)[1], figures)
            load_after = os.getloadavg()[0]
        finally:
            database.close()
    _print("all", totals)
    mode = "preloaded" if args.preloaded else "taken in by a second thread"
    print(f"machine: {os.cpu_count()} cores, {platform.platform()}, Python {platform.python_version()}; "
          f"batches {mode}; load average {load_before:.2f} before, {load_after:.2f} after")


def _print(name: str, figures: list[float]) -> None:
    wall, writer, take_in, backend, edges = figures
    idle = max(wall - writer - backend, 0.0)
    print(f"  {name:11} {edges:9,.0f} edges  wall {wall:6.2f} s ({edges / wall:8,.0f} edges/s)  "
          f"writer {writer:5.2f} s  take-in {take_in:5.2f} s  backend {backend:5.2f} s  idle {idle:5.2f} s")


if __name__ == "__main__":
    sys.exit(main())
