"""Graph reads on the read replica (`HOUNDGRAPH_READ_DATABASE_URL`), in process: the "replica" here is the test server
itself reached with `default_transaction_read_only` on, so that any write a graph read attempted would fail as it
would on a standby. The real primary and standby are in tests/test_streaming_replica.py."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

import httpx
import psycopg
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, PendingRollbackError

from houndgraph.database_errors import connection_lost
from houndgraph.db import Database, on_replica
from houndgraph.deadline import RequestDeadline
from houndgraph.settings import Settings
from tests.auth.signing import signed_headers
from tests.conftest import ADMIN_PASSWORD, LiveServer, _free_port, login
from tests.labs import clear, load_labs

READER_NAME = "hg-read-replica-test"
ADCS_DOMAIN_SID = "S-1-5-21-909015691-3030120388-2582151266"


def read_only_url(database: Database) -> str:
    """The test server as a standby looks to a client: every transaction read-only."""
    url = make_url(database.url)
    options = quote("-c default_transaction_read_only=on", safe="")
    query = "&".join(f"{key}={quote(str(value), safe='')}" for key, value in url.query.items())
    return f"{url.set(query={}).render_as_string(hide_password=False)}?{query}&options={options}" \
           f"&application_name={READER_NAME}"


@contextmanager
def server_with_replica(settings: Settings, database: Database, read_url: str,
                        **overrides: Any) -> Iterator[httpx.Client]:
    own = Database(url=database.url)
    own.add_read_replica(read_url, 1.0)
    server = LiveServer(settings.model_copy(update={"port": _free_port(), **overrides}), own)
    server.start()
    try:
        with httpx.Client(base_url=server.base_url, timeout=60) as http:
            http.headers["Authorization"] = f"Bearer {login(http, 'admin', ADMIN_PASSWORD)}"
            yield http
    finally:
        server.stop()
        own.close()


@pytest.fixture(scope="module")
def labs(database: Database) -> Iterator[Database]:
    load_labs(database)
    yield database
    clear(database)


@pytest.fixture(scope="module")
def replica_client(server_settings: Settings, labs: Database) -> Iterator[httpx.Client]:
    with server_with_replica(server_settings, labs, read_only_url(labs), enable_cypher_mutations=True) as http:
        yield http


def reader_connections(database: Database) -> int:
    with database.connect_raw() as conn:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                           (READER_NAME,)).fetchone()
    assert row is not None
    return int(row[0])


def cypher(http: httpx.Client, query: str) -> httpx.Response:
    return http.post("/api/v2/graphs/cypher", json={"query": query})


def test_graph_reads_are_answered_by_the_replica_and_write_nothing(replica_client: httpx.Client,
                                                                  labs: Database) -> None:
    users = cypher(replica_client, "MATCH (n:User) RETURN n LIMIT 5")
    assert users.status_code == 200, users.text
    domain_sid = replica_client.get("/api/v2/available-domains").json()["data"][0]["id"]
    user = next(iter(users.json()["data"]["nodes"].values()))["objectId"]
    admins = f"{domain_sid}-512"
    answers = [
        replica_client.get("/api/v2/search", params={"q": "admin"}),
        replica_client.get("/api/v2/graphs/shortest-path", params={"start_node": user, "end_node": admins}),
        replica_client.get(f"/api/v2/domains/{domain_sid}"),
        replica_client.get(f"/api/v2/groups/{admins}/members"),
        replica_client.get("/api/v2/attack-path-types"),
        replica_client.get(f"/api/v2/domains/{domain_sid}/available-types"),
        replica_client.get("/api/v2/completeness"),
    ]
    # 404 is the shortest-path route's answer when there is no path; anything else the replica could not serve
    # (a write in a read-only transaction is a 500) fails here.
    assert [answer.status_code for answer in answers] in ([200] * 7, [200, 404] + [200] * 5), \
        [(answer.request.url.path, answer.status_code, answer.text[:100]) for answer in answers
         if answer.status_code != 200]
    assert reader_connections(labs) > 0, "the replica's engine served them"


def test_a_query_with_an_updating_clause_goes_to_the_primary(replica_client: httpx.Client) -> None:
    created = cypher(replica_client, "CREATE (n:User {name: 'REPLICA-WRITE', objectid: 'REPLICA-WRITE'}) RETURN n")
    assert created.status_code == 200, created.text
    read = cypher(replica_client, "MATCH (n {objectid: 'REPLICA-WRITE'}) RETURN n")
    assert read.status_code == 200, "the replica reads what the primary committed before the request"
    assert cypher(replica_client, "MATCH (n {objectid: 'REPLICA-WRITE'}) DETACH DELETE n").status_code == 200


def test_a_signed_read_records_the_token_use_on_the_primary(replica_client: httpx.Client, labs: Database) -> None:
    token = replica_client.post("/api/v2/tokens", json={"token_name": "replica reader"}).json()["data"]
    path = f"/api/v2/domains/{ADCS_DOMAIN_SID}"
    with httpx.Client(base_url=str(replica_client.base_url), timeout=60) as anonymous:
        response = anonymous.get(path, headers=signed_headers(token["id"], token["key"], "GET", path))
    assert response.status_code == 200, response.text
    with labs.connect_raw() as conn:
        row = conn.execute("SELECT last_access FROM auth_tokens WHERE id = %s", (token["id"],)).fetchone()
    assert row is not None and row[0] is not None


def test_reads_go_to_the_primary_while_the_replica_cannot_be_reached(server_settings: Settings,
                                                                     labs: Database) -> None:
    with psycopg.connect(labs.conninfo) as conn:
        row = conn.execute("SELECT count(*) FROM node").fetchone()
    assert row is not None and row[0] > 0
    nowhere = f"postgresql://postgres@127.0.0.1:{_free_port()}/houndgraph?connect_timeout=2"
    with server_with_replica(server_settings, labs, nowhere) as http:
        for _ in range(3):
            answer = cypher(http, "MATCH (n:Domain) RETURN n")
            assert answer.status_code == 200, answer.text



def test_a_replica_connection_lost_before_the_read_began_is_answered_by_the_primary(
        replica_client: httpx.Client, labs: Database) -> None:
    # A replica stopping as a read began its transaction answered 503: the rollback of the lost transaction raised
    # a database error of its own, which replaced the "replica unavailable" that sends the read to the primary.
    # Here the replica's backend is ended while the request's first statement waits for a lock on a table it reads.
    with psycopg.connect(labs.conninfo) as holder, psycopg.connect(labs.conninfo, autocommit=True) as watcher, \
            ThreadPoolExecutor(1) as pool:
        holder.execute("LOCK TABLE cache_generation IN ACCESS EXCLUSIVE MODE")
        answer = pool.submit(cypher, replica_client, "MATCH (n:Domain) RETURN n")
        backend = None
        for _ in range(500):
            row = watcher.execute("SELECT pid FROM pg_stat_activity WHERE application_name = %s "
                                 "AND wait_event_type = 'Lock'", (READER_NAME,)).fetchone()
            if row is not None:
                backend = row[0]
                break
            time.sleep(0.01)
        assert backend is not None, "the read waits on the replica"
        watcher.execute("SELECT pg_terminate_backend(%s)", (backend,))
        holder.commit()
        result = answer.result(timeout=60)
    assert result.status_code == 200, result.text
    assert result.json()["data"]["nodes"]


def test_a_transaction_whose_connection_was_lost_unseen_counts_as_a_lost_connection(database: Database) -> None:
    # A replica stopping under a read answered 500 now and then: the request's connection was invalidated by a
    # statement whose error the handler never saw, and its commit raised SQLAlchemy's "invalid transaction", which
    # did not read as a lost connection, so the read was not answered again by the primary.
    async def commit_after_the_backend_ended() -> BaseException:
        own = Database(url=database.url)
        try:
            async with own.sessionmaker() as session:
                async with session.begin():
                    backend = (await session.execute(text("SELECT pg_backend_pid()"))).scalar_one()
                    with psycopg.connect(database.conninfo, autocommit=True) as other:
                        other.execute("SELECT pg_terminate_backend(%s)", (backend,))
                    try:
                        await session.execute(text("SELECT 1"))
                    except DBAPIError as lost:
                        assert connection_lost(lost)
                    else:
                        raise AssertionError("the ended backend answered")
            raise AssertionError("the commit passed")
        except PendingRollbackError as error:
            return error
        finally:
            own.close()

    assert connection_lost(asyncio.run(commit_after_the_backend_ended()))
    assert not connection_lost(PendingRollbackError("a failed flush", code="7s2a"))


def test_a_replica_read_answered_before_its_connection_was_lost_unseen_ends_without_an_error(
        database: Database) -> None:
    # The request's transaction commits after the handler returned its answer, outside the route's retry: a commit
    # that found the connection lost (SQLAlchemy's "invalid transaction", not a driver error) answered 500, where the
    # complete answer of a read that wrote nothing should stand, and the replica be passed over.
    async def read_whose_backend_ends() -> bool:
        own = Database(url=database.url)
        own.add_read_replica(read_only_url(database), 1.0)
        replica = own.read_replica
        assert replica is not None
        try:
            async with own.session(RequestDeadline(30), graph_read=True) as session:
                assert on_replica(session)
                backend = (await session.execute(text("SELECT pg_backend_pid()"))).scalar_one()
                with psycopg.connect(database.conninfo, autocommit=True) as other:
                    other.execute("SELECT pg_terminate_backend(%s)", (backend,))
                with contextlib.suppress(DBAPIError):  # a statement whose error the handler does not pass on
                    await session.execute(text("SELECT 1"))
            return replica.usable()
        finally:
            await own.dispose()
            own.close()

    assert asyncio.run(read_whose_backend_ends()) is False  # ended without an error; the replica passed over
