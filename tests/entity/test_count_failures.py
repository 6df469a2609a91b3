"""A count that fails is 0 and one that times out is left out, and neither spoils the request's
transaction (reference/behaviour.md §9): repository.count against the real PostgreSQL."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from houndgraph.db import Database
from houndgraph.entity import repository
from houndgraph.graph.related import KindIds, Relation

FAILING = Relation(lambda k: "SELECT 1 AS id WHERE 1 / (%(root)s - %(root)s) = 1", ())
SLOW = Relation(lambda k: "SELECT 1 AS id FROM pg_sleep(2)", ())
FINE = Relation(lambda k: "SELECT generate_series(1, %(root)s) AS id", ())


def test_failed_and_timed_out_counts(database: Database) -> None:
    async def go() -> None:
        async with await psycopg.AsyncConnection.connect(database.conninfo) as conn:
            await conn.execute("SET statement_timeout = 300")
            kinds = KindIds({})
            assert await repository.count(conn, FAILING, 3, kinds) == 0
            with pytest.raises(repository.CountTimedOut):
                await repository.count(conn, SLOW, 3, kinds)
            # The transaction is still usable after both.
            assert await repository.count(conn, FINE, 3, kinds) == 3
            await conn.rollback()

    asyncio.run(go())
