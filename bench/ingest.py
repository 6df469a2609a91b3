"""Ingest throughput: a synthetic SharpHound v6 collection through the real readers and graph store.

    .venv/bin/python bench/ingest.py [--objects 100000] [--batch-size 20000] [--sequential] [--tuned]
                                     [--set NAME=VALUE ...] [--statements] [--bulk] [--index-after INDEX]
    .venv/bin/python bench/ingest.py --read-only [--objects 100000]
    .venv/bin/python bench/ingest.py --objects 1000000 --new-computers 75000 --into COPY_OF_DATA_DIR [--statements]

Writes a collection of N objects as real JSON files, one record at a time (nothing is held in
memory): one domain, OUs, GPOs, containers, users (55 %), computers (25 %) with sessions and local
groups, and groups (15 %) nested in a tree, with ACEs on everything, about ten edges per object.
Then starts a fresh embedded PostgreSQL, migrates it, and ingests each file as an ingest task
(`read_file` batches into `GraphStore.write_all`, one transaction per file), printing objects/s,
edges/s, wall time, the CPU seconds of this process and of PostgreSQL (by process: ended backends count under
"server"), peak RSS and the machine. `--tuned` first applies TUNED_SETTINGS to the server, `--set` any setting;
`--sequential` calls `GraphStore.write` per batch instead of `write_all` (as the datapipe did). `--bulk` ingests as
the datapipe ingests a large job (`graph.store.bulk`). `--statements` adds where the server's time and I/O went.
`--read-only` starts no database: it prints the CPU seconds the reading process spends on each file, reading it
(checking, parsing, converting), preparing its batches for the writer and pickling them for the hand-over, a figure
that other work on the machine disturbs far less than wall time.
`--into DIR --new-computers N` measures a large file at the size of a kept database without ingesting that size
again: it ingests, into a service data directory DIR (a copy: it is changed), two files of N computers that the
stored collection of `--objects` objects does not hold, whose sessions, local groups, ACEs and OUs name its users and
groups (the first file fills the buffer cache, the second runs in that state).
"""

from __future__ import annotations

import argparse
import os
import pickle
import platform
import resource
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from processes import cpu, postgres_cpu, postgres_cpu_by_role  # bench/processes.py
from sharphound_collection import Layout, write_collection, write_new_computers  # bench/sharphound_collection.py

from houndgraph.db import Database
from houndgraph.embedded_server import restart_embedded
from houndgraph.graph.store import GraphStore, WriteStats, bulk, rfc3339
from houndgraph.graph.store.columns import prepare_cut
from houndgraph.graph.store.read_ahead import bulk_tuning
from houndgraph.ingest import IngestFile, read_file
from houndgraph.ingest.reader import read_cuts
from houndgraph.settings import Settings
from houndgraph.worker.loop_repository import SHARPHOUND_READING_ORDER

# Settings tried against the embedded server's (shared_buffers 128MB until the service set an eighth of memory up to
# 1GB, max_wal_size 1GB and checkpoint_timeout 5min until it set 8GB and 30min, `EMBEDDED_SETTINGS`: `--set
# shared_buffers=128MB --set max_wal_size=1GB --set checkpoint_timeout=5min` measures the old ones). At 300k objects,
# in SharpHound's order with a lastseen per file, these cut the WAL from 3.8
# to 3.2 GB but not the time (71.7 s, 73.6 s tuned); in the reading order under one lastseen, the checkpoint
# settings alone cut it from 3.55 to 2.34 GB and the full-page images from 170k to 6k. At 100k objects (load 4-5)
# PostgreSQL spent 29.5 s of CPU with the defaults and 36.9 s tuned. `wal_init_zero=off` (no zero-filled new WAL
# segments) left the WAL writer's CPU at 1.4 s against 1.7 s: not worth a setting.
TUNED_SETTINGS = {
    "shared_buffers": "512MB",
    "max_wal_size": "8GB",
    "checkpoint_timeout": "30min",
}


def _opener(path: Path) -> Any:
    def open_file() -> BinaryIO:
        return path.open("rb")

    return open_file


def ingest(database: Database, paths: list[Path], batch_size: int, sequential: bool,
           data_dir: Path | None = None) -> WriteStats:
    """Ingest each file as an ingest task; per file, the edges/s, the backend's CPU and (with `data_dir`) the whole
    server's (the WAL writer, the I/O workers, the checkpointer and the background writer work for the backend)."""
    total = WriteStats()
    # One upload job: its files share one `lastseen` (the job's start), so a record or edge that a later file
    # restates unchanged is left alone, as the datapipe leaves it.
    seen_at = datetime.now(UTC)
    for path in paths:
        document = IngestFile(name=path.name, parent_name=None, open=_opener(path))
        started = time.perf_counter()
        server_before = postgres_cpu(data_dir) if data_dir else 0.0
        with database.connect_raw() as conn:
            row = conn.execute("SELECT pg_backend_pid()").fetchone()
            backend = int(row[0]) if row else 0
            store = GraphStore(conn)
            warnings: list[str] = []
            batches = read_file(document, batch_size=batch_size, warnings=warnings)
            written = WriteStats()
            if sequential:
                for batch in batches:
                    written += store.write(batch, seen_at=seen_at)
            else:
                written = store.write_all(batches, seen_at=seen_at)
            conn.commit()
            backend_cpu = cpu(backend, reaped=False)
            server_cpu = postgres_cpu(data_dir) - server_before if data_dir else 0.0
        total += written
        wall = time.perf_counter() - started
        edges = max(written.edges, 1)
        server = f", all of PostgreSQL {server_cpu:.1f} s ({server_cpu * 1e6 / edges:.1f} us/edge)" if data_dir else ""
        print(f"  {path.stem}: {written.nodes:,} nodes, {written.edges:,} edges in {wall:.1f} s "
              f"({written.edges / wall:,.0f} edges/s), backend CPU {backend_cpu:.1f} s "
              f"({backend_cpu * 1e6 / edges:.1f} us/edge){server}; load {os.getloadavg()[0]:.2f}")  # fmt: skip
        for warning in warnings:
            print(f"  warning ({path.name}): {warning}", file=sys.stderr)
    return total


def read_only(paths: list[Path], batch_size: int) -> None:
    """CPU seconds of the reading process's work alone, per file, as it does it: `read_cuts` (checking, parsing and
    converting, edges by column), `prepare_cut` (merging and encoding the batches for COPY) and pickling each batch
    for the hand-over to the writer, with no PostgreSQL to overlap. Run with the interpreter settings that process
    uses."""
    lastseen = rfc3339(datetime.now(UTC))
    totals = [0.0, 0.0, 0.0]
    with bulk_tuning():
        for path in paths:
            document = IngestFile(name=path.name, parent_name=None, open=_opener(path))
            records, spent = 0, [0.0, 0.0, 0.0]
            cuts = read_cuts(document, batch_size=batch_size)
            while True:
                started = time.process_time()
                cut = next(cuts, None)
                read = time.process_time()
                spent[0] += read - started
                if cut is None:
                    break
                records += len(cut)
                prepared = prepare_cut(cut, lastseen)
                ready = time.process_time()
                pickle.dumps(("batch", prepared), protocol=pickle.HIGHEST_PROTOCOL)
                spent[1] += ready - read
                spent[2] += time.process_time() - ready
            totals = [total + part for total, part in zip(totals, spent, strict=True)]
            print(f"  {path.name:34} {records:>9,} records  read {spent[0]:6.2f} s  prepare {spent[1]:6.2f} s  "
                  f"pickle {spent[2]:5.2f} s CPU")
    print(f"reading: {sum(totals):.2f} s CPU in all (read_cuts {totals[0]:.2f} s, prepare_cut {totals[1]:.2f} s, "
          f"pickle {totals[2]:.2f} s); load average {os.getloadavg()[0]:.2f}")


def _ram_gib() -> float:
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024**2
    return 0.0


# Rows the ingest inserted and updated in the graph tables (a placeholder node that its record later fills in is an
# update; one that is not HOT adds an entry to every index of the table).
TUPLE_COUNTS = """
SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables
WHERE relname IN ('node', 'edge') ORDER BY relname DESC
"""

# Since the server started (`_tune` restarts it): the migrations' share is a few MB.
WAL_COUNTS = """
SELECT wal_bytes, wal_fpi, num_requested, num_timed FROM pg_stat_wal, pg_stat_checkpointer
"""


# `--statements`: where the server's time went, by statement (the start of its text, on one line).
TOP_STATEMENTS = """
SELECT total_exec_time / 1000, calls, rows, shared_blks_hit, shared_blks_read, shared_blks_written, wal_bytes,
       left(regexp_replace(query, '\\s+', ' ', 'g'), 90)
FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 12
"""


# `--statements`: the graph tables' indexes, their size against the buffer cache and their blocks found in it (hit) or
# read from the kernel (read), and the client backends' I/O by context ("bulkwrite": COPY's 16 MB ring of buffers,
# whose dirty pages the backend itself writes out, flushing the WAL up to each).
INDEX_IO = """
SELECT s.indexrelname, pg_relation_size(s.indexrelid), s.idx_blks_hit, s.idx_blks_read
FROM pg_statio_user_indexes s WHERE s.relname IN ('node', 'edge') ORDER BY s.relname DESC, s.indexrelname
"""
BACKEND_IO = """
SELECT object, context, coalesce(reads, 0), coalesce(writes, 0), coalesce(extends, 0), coalesce(hits, 0),
       coalesce(evictions, 0), coalesce(reuses, 0), coalesce(fsyncs, 0)
FROM pg_stat_io WHERE backend_type = 'client backend' AND object = 'relation'
  AND coalesce(reads, 0) + coalesce(writes, 0) + coalesce(extends, 0) > 0
ORDER BY object, context
"""
WAL_SYNCS = "SELECT coalesce(sum(writes), 0), coalesce(sum(fsyncs), 0) FROM pg_stat_io WHERE object = 'wal'"
# `--index-after`: an index's definition, to drop it before the ingest and build it again after.
INDEX_DEFINITION = "SELECT pg_get_indexdef(%s::regclass)"


def _tune(database: Database, settings: dict[str, str]) -> None:
    """Apply server settings over those the service's start applies (`EMBEDDED_SETTINGS`), with a restart, so
    `--set max_wal_size=1GB --set shared_buffers=160MB` measures the server's own defaults."""
    _alter_system(database, settings)
    restart_embedded(database.embedded)


def _alter_system(database: Database, settings: dict[str, str]) -> None:
    with database.connect_raw(autocommit=True) as conn:
        for name, value in settings.items():
            conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")  # given by whoever runs this script
        conn.execute("SELECT pg_reload_conf()")


def _definition(conn: Any, name: str) -> tuple[str, str]:
    row = conn.execute(INDEX_DEFINITION, (name,)).fetchone()
    return name, row[0]


def _build(database: Database, data_dir: Path, deferred: list[tuple[str, str]]) -> list[tuple[str, float, float]]:
    """Build each dropped index again (as CREATE INDEX after a bulk load would): name, wall seconds, PostgreSQL CPU."""
    built = []
    with database.connect_raw(autocommit=True) as conn:
        for name, definition in deferred:
            cpu_before, started = postgres_cpu(data_dir), time.perf_counter()
            conn.execute(definition)
            built.append((name, time.perf_counter() - started, postgres_cpu(data_dir) - cpu_before))
    return built


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=100_000)
    parser.add_argument("--batch-size", type=int, default=20_000, help="records per batch (read_file)")
    parser.add_argument("--tuned", action="store_true", help="apply TUNED_SETTINGS to the server first")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a server setting to apply first (repeatable; with --tuned, after TUNED_SETTINGS)")
    parser.add_argument("--keep", type=Path, help="write the collection here and keep it")
    parser.add_argument("--sequential", action="store_true", help="GraphStore.write per batch, no read-ahead")
    parser.add_argument("--read-only", action="store_true",
                        help="CPU seconds of reading and preparing per file, no database")
    parser.add_argument("--statements", action="store_true",
                        help="load pg_stat_statements and print the statements that took the most time")
    parser.add_argument("--index-after", action="append", default=[], metavar="INDEX",
                        help="drop this index of node or edge before the ingest and build it after, timed "
                             "(repeatable): what building an index once costs against keeping it row by row")
    parser.add_argument("--bulk", action="store_true",
                        help="bulk mode, as the datapipe runs a large job: graph.store.bulk's indexes dropped before "
                             "the files and built after them (counted in the wall time and CPU)")
    parser.add_argument("--into", type=Path, metavar="DATA_DIR",
                        help="ingest into this service data directory (a copy of a kept database: it is changed) "
                             "instead of a fresh one")
    parser.add_argument("--new-computers", type=int, metavar="N",
                        help="write only N computers that a stored collection of --objects objects does not hold, "
                             "naming its users and groups (with --into: a large file's cost at that size)")
    parser.add_argument("--order", choices=("reading", "sharphound"), default="reading",
                        help="the files in the datapipe's reading order (as an upload is read), or as SharpHound "
                             "writes them")
    args = parser.parse_args()

    layout = Layout.of(args.objects)
    with tempfile.TemporaryDirectory(prefix="hg-bench-", dir="/tmp") as scratch:
        files_dir = args.keep or Path(scratch) / "collection"
        files_dir.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        if args.new_computers:
            paths = write_new_computers(layout, args.new_computers, files_dir)
        else:
            paths = write_collection(layout, files_dir)
        if args.order == "reading":
            paths.sort(key=lambda path: SHARPHOUND_READING_ORDER.index(path.stem.rsplit("_", 1)[1]))
        size_mb = sum(path.stat().st_size for path in paths) / 1e6
        print(f"collection: {args.objects:,} objects, {len(paths)} files, {size_mb:,.0f} MB, "
              f"written in {time.perf_counter() - started:.1f} s")  # fmt: skip
        if args.read_only:
            print(f"machine: {os.cpu_count()} cores, {platform.platform()}, Python {platform.python_version()}")
            read_only(paths, args.batch_size)
            return

        data_dir = args.into or Path(scratch) / "db"
        database = Database.open(Settings(data_dir=data_dir))
        try:
            database.migrate()
            server_settings = dict(TUNED_SETTINGS) if args.tuned else {}
            server_settings.update(item.split("=", 1) for item in args.set)
            if args.statements:
                server_settings["shared_preload_libraries"] = "pg_stat_statements"
            if server_settings:
                _tune(database, server_settings)
            with database.connect_raw() as conn:
                row = conn.execute("SHOW server_version").fetchone()
                settings = conn.execute(
                    "SELECT string_agg(name || '=' || current_setting(name), ' ') FROM pg_settings "
                    "WHERE name = ANY(%s)", ([*TUNED_SETTINGS, "wal_init_zero", *server_settings],)
                ).fetchone()  # fmt: skip
                if args.statements:
                    conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
                    conn.execute("SELECT pg_stat_statements_reset()")
                    conn.execute("SELECT pg_stat_reset()")  # the indexes' blocks (a kept database's are old)
                    conn.execute("SELECT pg_stat_reset_shared('io')")
                    conn.execute("SELECT pg_stat_reset_shared('wal')")
                    conn.commit()
                deferred = [_definition(conn, name) for name in args.index_after]
                for name in args.index_after:
                    conn.execute(f"DROP INDEX {name}")  # given by whoever runs this script
                conn.commit()
            rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            load_before = os.getloadavg()[0]
            cpu_before = time.process_time(), postgres_cpu_by_role(data_dir)
            started = time.perf_counter()
            if args.bulk:
                with database.connect_raw(autocommit=True) as conn:
                    bulk.defer(conn)
            stats = ingest(database, paths, args.batch_size, args.sequential, data_dir)
            if args.bulk:
                rebuild_started = time.perf_counter()
                with database.connect_raw(autocommit=True) as conn:
                    rebuilt = bulk.rebuild(conn)
                print(f"  bulk mode: built {', '.join(rebuilt)} in {time.perf_counter() - rebuild_started:.1f} s")
            wall = time.perf_counter() - started
            cpu_python = time.process_time() - cpu_before[0]
            roles = postgres_cpu_by_role(data_dir)
            cpu_roles = {role: spent - cpu_before[1].get(role, 0.0) for role, spent in roles.items()}
            cpu_postgres = sum(cpu_roles.values())
            load_after = os.getloadavg()[0]
            builds = _build(database, data_dir, deferred)
            with database.connect_raw() as conn:
                tuples = conn.execute(TUPLE_COUNTS).fetchall()
                wal = conn.execute(WAL_COUNTS).fetchone()
                statements = conn.execute(TOP_STATEMENTS).fetchall() if args.statements else []
                index_io = conn.execute(INDEX_IO).fetchall() if args.statements else []
                backend_io = conn.execute(BACKEND_IO).fetchall() if args.statements else []
                wal_syncs = conn.execute(WAL_SYNCS).fetchone() if args.statements else None
        finally:
            database.close()

    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"machine: {os.cpu_count()} cores, {_ram_gib():.1f} GiB RAM, {platform.platform()}, "
          f"Python {platform.python_version()}, PostgreSQL {row[0] if row else '?'} (embedded)")  # fmt: skip
    print(f"server settings: {settings[0] if settings else '?'}")
    mode = "write per batch" if args.sequential else "write_all (read-ahead thread)"
    print(f"batch size: {args.batch_size:,} records, {mode}; load average before: {load_before:.2f}")
    print(f"ingested: {stats.nodes:,} node records, {stats.edges:,} edges, {stats.placeholders:,} placeholders")
    print("files: " + ", ".join(path.stem.rsplit("_", 1)[1] for path in paths))
    print("rows: " + "; ".join(f"{table} {inserted:,} inserted, {updated:,} updated ({hot:,} HOT)"
                               for table, inserted, updated, hot in tuples))
    if wal is not None:
        print(f"WAL: {float(wal[0]) / 1e9:.2f} GB, {wal[1]:,} full-page images; checkpoints: {wal[2]} requested, "
              f"{wal[3]} timed")
    print(f"wall time: {wall:.1f} s (load average after: {load_after:.2f})")
    for name, seconds, build_cpu in builds:
        print(f"index built after the ingest: {name} in {seconds:.1f} s, postgres CPU {build_cpu:.1f} s")
    print(f"CPU: {cpu_python + cpu_postgres:.1f} s (this process {cpu_python:.1f} s, postgres {cpu_postgres:.1f} s: "
          + ", ".join(f"{role} {spent:.1f}" for role, spent in sorted(cpu_roles.items(), key=lambda item: -item[1]))
          + ")")
    print(f"objects/s: {args.objects / wall:,.0f}")
    print(f"edges/s: {stats.edges / wall:,.0f}")
    print(f"peak RSS: {peak_rss:,.0f} MB (before ingest {rss_before:,.0f} MB)")
    if statements:
        print("statements by time (s, calls, rows, shared blocks hit/read/written, WAL MB):")
        for seconds, calls, rows, hit, read, written_blocks, wal_bytes, text in statements:
            print(f"  {seconds:7.2f} {calls:6,} {rows:10,} {hit:12,} {read:8,} {written_blocks:8,} "
                  f"{float(wal_bytes) / 1e6:8.0f}  {text}")
    if index_io:
        print("indexes (MB, blocks hit, blocks read):")
        for name, size, hit, read in index_io:
            print(f"  {name:34} {size / 1e6:8.1f} {hit:12,} {read:10,}")
    if backend_io:
        print("client backends' I/O on relations (context: reads, writes, extends, hits, evictions, reuses, fsyncs):")
        for _, context, *counts in backend_io:
            print(f"  {context:10} " + " ".join(f"{int(count):10,}" for count in counts))
    if wal_syncs is not None:
        print(f"WAL writes {wal_syncs[0]:,}, syncs {wal_syncs[1]:,}")


if __name__ == "__main__":
    main()
