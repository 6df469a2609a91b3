"""The first statement of a request's transaction (`db.start_request`): BEGIN goes with it in one round trip,
and what it reads stands in for statements of its own later on (the kind catalogue's count)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import psycopg
import pytest
from sqlalchemy import text

from houndgraph.db import Database, graph_connection, request_start
from houndgraph.deadline import RequestDeadline
from houndgraph.graph import kind_catalogue


def _in_request(database: Database, work: Any, seconds: float = 30) -> Any:
    """`work(session)` inside a request's session (bound by a deadline of `seconds`), on a fresh engine."""

    async def run() -> Any:
        db = Database(url=database.url)
        try:
            async with db.session(RequestDeadline(seconds)) as session:
                return await work(session)
        finally:
            await db.dispose()

    return asyncio.run(run())


def test_the_first_statement_begins_the_transaction_and_sets_its_timeout(database: Database) -> None:
    async def work(session: Any) -> tuple[Any, ...]:
        conn = await graph_connection(session)
        status = conn.info.transaction_status
        cursor = await conn.execute("SELECT current_setting('statement_timeout'), pg_current_xact_id()::text, "
                                    "now()::text, statement_timestamp()::text")
        first = await cursor.fetchone()
        # Through SQLAlchemy too: the same transaction (its start time and id do not change).
        second = (await session.execute(text("SELECT pg_current_xact_id()::text, now()::text"))).one()
        return status, first, tuple(second), request_start(session)

    status, (timeout, xact, started, _), second, start = _in_request(database, work, seconds=30)
    assert status == psycopg.pq.TransactionStatus.INTRANS
    assert timeout.endswith("ms") or timeout.endswith("s")
    milliseconds = int(timeout.removesuffix("ms")) if timeout.endswith("ms") else int(timeout.removesuffix("s")) * 1000
    assert 25_000 < milliseconds <= 30_000
    assert second == (xact, started)
    with database.connect_raw() as conn:
        row = conn.execute("SELECT (SELECT generation FROM cache_generation), (SELECT count(*) FROM kind), "
                           "(SELECT last_value FROM graph_generation)").fetchone()
    assert start is not None and (start.generation, start.kind_count, start.graph_generation) == row


def test_a_request_that_fails_leaves_nothing_and_the_next_one_begins_afresh(database: Database) -> None:
    probe = f"RequestStartProbe{uuid.uuid4().hex}"

    async def failing(session: Any) -> None:
        conn = await graph_connection(session)
        await conn.execute("INSERT INTO kind (name) VALUES (%s)", (probe,))
        await conn.execute("SELECT 1 / 0")

    with pytest.raises(psycopg.errors.DivisionByZero):
        _in_request(database, failing)
    with database.connect_raw() as conn:
        assert conn.execute("SELECT count(*) FROM kind WHERE name = %s", (probe,)).fetchone() == (0,)

    async def reading(session: Any) -> tuple[str, str]:
        conn = await graph_connection(session)
        cursor = await conn.execute("SELECT current_setting('statement_timeout'), pg_current_xact_id()::text")
        row = await cursor.fetchone()
        return row[0], row[1]

    timeout, xact = _in_request(database, reading)
    assert timeout != "0" and xact


def test_a_statement_over_the_deadline_is_cancelled(database: Database) -> None:
    async def slow(session: Any) -> None:
        conn = await graph_connection(session)
        await conn.execute("SELECT pg_sleep(5)")

    with pytest.raises(psycopg.errors.QueryCanceled):
        _in_request(database, slow, seconds=0.3)


def _plain_kind_map(database: Database) -> dict[str, int]:
    with database.connect_raw() as conn:
        return dict(conn.execute("SELECT name, id FROM kind").fetchall())


def test_the_kind_map_in_a_request_is_the_kind_map(database: Database) -> None:
    """In a request, the kind map answers from the count its first statement read; still every kind."""
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("INSERT INTO kind (name) VALUES ('KindAtStartProbe') ON CONFLICT DO NOTHING")

    async def twice(session: Any) -> tuple[dict[str, int], dict[str, int]]:
        conn = await graph_connection(session)
        # The first may read the table (a kind is new since the process's last full read); the second
        # answers from the process cache.
        return await kind_catalogue.kind_map(conn), await kind_catalogue.kind_map(conn)

    first, again = _in_request(database, twice)
    assert first == again == _plain_kind_map(database)
    assert "KindAtStartProbe" in first
    # A kind created since the process's last full read is found too: the count differs.
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("INSERT INTO kind (name) VALUES ('KindAtStartProbe2') ON CONFLICT DO NOTHING")
    first, again = _in_request(database, twice)
    assert first == again == _plain_kind_map(database)
    assert "KindAtStartProbe2" in first


def test_a_kind_the_request_creates_is_in_its_kind_map(database: Database) -> None:
    """The count read at the start no longer holds once the transaction creates a kind: the map reads again,
    and finds the new kind (uncommitted, so never in the process cache)."""
    probe = f"KindCreatedProbe{uuid.uuid4().hex}"

    async def create(session: Any) -> tuple[dict[str, int], dict[str, int]]:
        conn = await graph_connection(session)
        await kind_catalogue.kind_map(conn)  # the process cache is full: the start's count is its count
        before = await kind_catalogue.kind_map(conn)
        await kind_catalogue.ensure_kinds(conn, dict(before), [probe])
        return before, await kind_catalogue.kind_map(conn)

    before, after = _in_request(database, create)
    assert probe not in before
    assert probe in after and after == _plain_kind_map(database)
