"""A database that has gone away answers 503 on every route, the health check's answer, never a 500: a load balancer
or a client retries a 503, and a 500 told them the request itself had failed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import psycopg
from sqlalchemy.engine import make_url

from houndgraph.db import Database, libpq_url
from houndgraph.settings import Settings
from tests.conftest import ADMIN_PASSWORD, another_server, login, scratch_database

LOGIN = {"login_method": "secret", "username": "admin", "secret": ADMIN_PASSWORD}


@contextmanager
def unreachable(server_database: Database, scratch: Database) -> Iterator[None]:
    """`scratch` refuses every connection and its open ones are ended, as when its server has stopped."""
    name = make_url(scratch.url).database
    admin_url = libpq_url(str(make_url(server_database.url).set(database="postgres")))
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS false')
        conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
        try:
            yield
        finally:
            conn.execute(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS true')


def test_every_route_answers_503_while_the_database_is_unreachable(server_settings: Settings,
                                                                   database: Database) -> None:
    with scratch_database(database, "unreachable") as scratch, another_server(server_settings, scratch) as server, \
            httpx.Client(base_url=server.base_url, timeout=60) as http:
        signed_in = {"Authorization": f"Bearer {login(http, 'admin', ADMIN_PASSWORD)}"}
        with unreachable(database, scratch):
            answers = [http.post("/api/v2/login", json=LOGIN),
                       http.get("/api/v2/self", headers=signed_in),
                       http.post("/api/v2/graphs/cypher", json={"query": "RETURN 1 AS one"}, headers=signed_in),
                       http.get("/api/v2/health")]
            assert [answer.status_code for answer in answers] == [503, 503, 503, 503], [a.text for a in answers]
            assert answers[0].json()["errors"][0]["message"] == "the database is unreachable"
        # Back once the database is.
        assert http.post("/api/v2/login", json=LOGIN).status_code == 200
