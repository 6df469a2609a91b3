"""A pooled connection the server has dropped (a database restart, an operator's `pg_terminate_backend`) is
replaced at checkout: no request fails for it, and no request pays a ping for the others."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from sqlalchemy.engine import make_url

from houndgraph.db import Database
from houndgraph.settings import Settings
from tests.conftest import ADMIN_PASSWORD, LiveServer, _free_port, login


@pytest.fixture
def named_server(server_settings: Settings, database: Database) -> Iterator[tuple[LiveServer, str]]:
    """The app on a database URL of its own application name, so that the test ends only its backends."""
    name = f"dropped-{uuid.uuid4().hex[:8]}"
    url = make_url(database.url).update_query_dict({"application_name": name})
    own = Database(url=url.render_as_string(hide_password=False))
    server = LiveServer(server_settings.model_copy(update={"port": _free_port()}), own)
    server.start()
    try:
        yield server, name
    finally:
        server.stop()
        own.close()


def terminate_backends(database: Database, application_name: str) -> int:
    with database.connect_raw(autocommit=True) as conn:
        rows = conn.execute("SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity "
                            "WHERE application_name = %s AND pid <> pg_backend_pid()", (application_name,)).fetchall()
    assert all(ended for (ended,) in rows)
    return len(rows)


def statuses(http: httpx.Client, uris: list[str]) -> list[int]:
    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(lambda uri: http.get(uri).status_code, uris))


def test_no_request_fails_after_the_backends_of_its_pool_are_ended(named_server: tuple[LiveServer, str],
                                                                 database: Database) -> None:
    server, name = named_server
    uris = ["/api/v2/self", "/api/v2/config", "/api/v2/saved-queries", "/api/v2/datapipe/status"] * 6
    with httpx.Client(base_url=server.base_url, timeout=60) as http:
        http.headers["Authorization"] = f"Bearer {login(http, 'admin', ADMIN_PASSWORD)}"
        # Several requests at once: the pool holds several connections.
        assert set(statuses(http, uris)) == {200}
        assert terminate_backends(database, name) >= 2
        assert set(statuses(http, uris)) == {200}, "every request was served on a live connection"
        assert http.get("/api/v2/self").status_code == 200
        assert terminate_backends(database, name) >= 1
        assert [http.get(uri).status_code for uri in uris[:4]] == [200] * 4
