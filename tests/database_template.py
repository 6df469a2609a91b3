"""One migrated data directory per test run, copied wherever a test needs the service's database as a start finds it.

initdb, the restart for the embedded server's settings and the 47 migrations cost about ten seconds of CPU; every
test worker and every `houndgraph serve` of the service tests used to pay them on a data directory of its own. The
first process of a run that needs a database builds the template through the service's own start (`Database.open`
and `migrate` on an empty directory), stops its server cleanly and keeps its `pgdata`; the others wait for it under
a file lock. A copy is then a data directory as a stopped service leaves it: the next start attaches, finds its
settings written and its migrations and database code current, and still runs both checks.

The template lives in a directory the run's controller (the xdist master, or the lone session) makes and removes:
nothing outlives the run. Tests about a first start on an empty directory (tests/test_database.py, the service's
first start in tests/test_service_lifecycle.py) do not use it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

# A database beside the service's own in the template, never connected to: `CREATE DATABASE ... TEMPLATE` needs a
# source no one else is using, and the service's database is in use by then.
MIGRATED_DATABASE = "houndgraph_migrated"
_KEY = "houndgraph_template"
_directory = pytest.StashKey[Path]()


def configure(config: pytest.Config) -> None:
    """At the run's start: the controller makes the template's directory; a worker is told it by the controller."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        config.stash[_directory] = Path(workerinput[_KEY])
    else:
        config.stash[_directory] = Path(tempfile.mkdtemp(prefix="hg-template-", dir="/tmp"))


def configure_node(node: object) -> None:
    config: pytest.Config = node.config  # type: ignore[attr-defined]
    node.workerinput[_KEY] = str(config.stash[_directory])  # type: ignore[attr-defined]


def unconfigure(config: pytest.Config) -> None:
    """At the run's end, in the controller: the template goes (its server was stopped once it was built; one left
    by a build that failed half-way is stopped first)."""
    if hasattr(config, "workerinput") or _directory not in config.stash:
        return
    directory = config.stash[_directory]
    _stop_server(directory / "pgdata")
    shutil.rmtree(directory, ignore_errors=True)


def _stop_server(pgdata: Path) -> None:
    pid_file = pgdata / "postmaster.pid"
    if pid_file.exists():
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid_file.read_text().split()[0]), signal.SIGINT)


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    with (directory / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _template(config: pytest.Config) -> Path:
    """The template's `pgdata`, built by the first process to ask for it."""
    directory = config.stash[_directory]
    pgdata = directory / "pgdata"
    with _locked(directory):
        if not (directory / "ready").exists():
            _build(directory)
            (directory / "ready").touch()
    return pgdata


def _build(directory: Path) -> None:
    import psycopg
    from sqlalchemy.engine import make_url

    from houndgraph.db import Database, libpq_url
    from houndgraph.settings import Settings

    database = Database.open(Settings(data_dir=directory))
    try:
        database.migrate()
        database.sync_engine.dispose()  # the copy below needs the migrated database to itself
        admin_url = libpq_url(str(make_url(database.url).set(database="postgres")))
        with psycopg.connect(admin_url, autocommit=True) as conn:
            # PostgreSQL's non-durable settings (its manual's "Non-Durable Settings"): what a test reads is the same,
            # only a crash of the machine itself could lose a commit, and a test run's databases are thrown away.
            # A suite commits tens of thousands of times; each waited for its WAL flush.
            for name in ("fsync", "synchronous_commit", "full_page_writes"):
                conn.execute(f"ALTER SYSTEM SET {name} = off")
            conn.execute("CHECKPOINT")
            conn.execute(f'CREATE DATABASE "{MIGRATED_DATABASE}" TEMPLATE houndgraph')
    finally:
        database.close()  # its last holder: the server stops (fast shutdown, a clean checkpoint)
    # What the stopped server leaves that belongs to this run of it, not to the data.
    for name in ("log", "postmaster.opts", ".handle_pids.json"):
        (directory / "pgdata" / name).unlink(missing_ok=True)


def seed(config: pytest.Config, data_dir: Path) -> Path:
    """`data_dir/pgdata` as a copy of the migrated template (owner and modes kept: run as root, the embedded server's
    OS user owns it); `data_dir`."""
    template = _template(config)
    data_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cp", "-a", "--reflink=auto", str(template), str(data_dir / "pgdata")], check=True)
    return data_dir
