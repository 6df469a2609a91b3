"""Every request has a deadline that PostgreSQL enforces too, whatever `Prefer` says (issue #11, defect 3),
and a client that goes away takes its database work with it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from houndgraph.db import Database
from houndgraph.settings import Settings
from tests.conftest import ADMIN_PASSWORD, DATA, LiveServer, another_server, login

TIMED_OUT = "transaction timed out, reduce query complexity or try again later"
# Minutes of work in PostgreSQL: 10^10 rows counted.
RUNAWAY = "UNWIND range(1, 100000) AS x UNWIND range(1, 100000) AS y RETURN count(y)"


def running_queries(database: Database) -> list[str]:
    """The statements of the service's backends that are still running (not this test's own, nor one waiting in
    line for a lock)."""
    with database.connect_raw(autocommit=True) as conn:
        rows = conn.execute(
            "SELECT query FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' "
            "AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND query ILIKE '%%count%%' "
            "AND wait_event_type IS DISTINCT FROM 'Lock'"
        ).fetchall()
    return [row[0] for row in rows]


def wait_until_no_running_query(database: Database) -> bool:
    """Polls for a while; True once no backend runs the query any more."""
    for _ in range(100):
        if not running_queries(database):
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def short_limit(server_settings: Settings, database: Database) -> Iterator[LiveServer]:
    """The service with a 2 s request timeout, as an administrator may set it."""
    with another_server(server_settings, database, request_timeout_seconds=2) as server:
        yield server


@contextmanager
def admin_of(server: LiveServer, timeout: float = 60) -> Iterator[httpx.Client]:
    """A client of `server` logged in as the administrator."""
    with httpx.Client(base_url=server.base_url, timeout=timeout) as http:
        http.headers["Authorization"] = f"Bearer {login(http, 'admin', ADMIN_PASSWORD)}"
        yield http


def cypher(server: LiveServer, query: str, timeout: float = 60, **headers: str) -> httpx.Response:
    with admin_of(server, timeout) as http:
        return http.post("/api/v2/graphs/cypher", json={"query": query}, headers=headers)


@pytest.mark.parametrize("prefer", ["wait=0", "wait=3600", None])
def test_prefer_cannot_lift_the_request_timeout(short_limit: LiveServer, database: Database,
                                                  prefer: str | None) -> None:
    headers = {"Prefer": prefer} if prefer else {}
    response = cypher(short_limit, RUNAWAY, **headers)
    assert response.status_code == 500
    assert response.json()["errors"][0]["message"] == TIMED_OUT
    assert wait_until_no_running_query(database), "the query must not run on in PostgreSQL"


def test_prefer_may_lower_the_request_timeout(admin: httpx.Client, database: Database) -> None:
    response = admin.post("/api/v2/graphs/cypher", json={"query": RUNAWAY}, headers={"Prefer": "wait=1"})
    assert response.status_code == 500
    assert response.json()["errors"][0]["message"] == TIMED_OUT
    assert wait_until_no_running_query(database)


def test_a_client_that_disconnects_cancels_its_query(live_server: LiveServer, database: Database) -> None:
    with admin_of(live_server) as http, pytest.raises(httpx.ReadTimeout):
        # The client gives up after one second; the service's limit is 30 s.
        http.post("/api/v2/graphs/cypher", json={"query": RUNAWAY}, timeout=1)
    assert wait_until_no_running_query(database), "the backend of a gone client must be cancelled"


def test_the_deadline_starts_once_the_request_has_arrived(short_limit: LiveServer) -> None:
    """An upload sent more slowly than the request timeout is still accepted."""
    content = (DATA / "sharphound" / "v6-testlab" / "domains.json").read_bytes()

    def slowly() -> Iterator[bytes]:
        step = len(content) // 4 + 1
        for start in range(0, len(content), step):
            time.sleep(1)
            yield content[start:start + step]

    with admin_of(short_limit) as http:
        job = http.post("/api/v2/file-upload/start").json()["data"]["id"]
        response = http.post(f"/api/v2/file-upload/{job}", content=slowly(),
                             headers={"Content-Type": "application/json"})
        assert response.status_code == 202, response.text


def test_the_service_answers_while_a_query_runs(live_server: LiveServer, database: Database) -> None:
    answers: list[httpx.Response] = []
    worker = threading.Thread(target=lambda: answers.append(cypher(live_server, RUNAWAY, Prefer="wait=3")))
    worker.start()
    try:
        for _ in range(50):
            if running_queries(database):
                break
            time.sleep(0.1)
        with httpx.Client(base_url=live_server.base_url, timeout=10) as http:
            assert http.get("/api/version").status_code == 200
    finally:
        worker.join(timeout=60)
    assert answers and answers[0].status_code == 500
