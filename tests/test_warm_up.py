"""The warm-up each process runs as it starts (`app.warm_up`): a small Cypher query and a path search, on any
graph, never an error that stops the service."""

from __future__ import annotations

import asyncio
import logging

import pytest

from houndgraph.app import warm_up
from houndgraph.db import Database


def _warm(database: Database) -> None:
    async def run() -> None:
        db = Database(url=database.url)
        try:
            await warm_up(db)
        finally:
            await db.dispose()

    asyncio.run(run())


def test_warm_up_on_an_empty_and_on_a_filled_graph(empty_graph: Database, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="houndgraph"):
        _warm(empty_graph)
        with empty_graph.connect_raw(autocommit=True) as conn:
            conn.execute("INSERT INTO kind (name) VALUES ('Base'), ('WarmUpEdge') ON CONFLICT DO NOTHING")
            conn.execute("INSERT INTO node (kind_ids, properties) SELECT ARRAY[(SELECT id FROM kind WHERE name = "
                         "'Base')]::smallint[], '{}' FROM generate_series(1, 3)")
            conn.execute("INSERT INTO edge (start_id, end_id, kind_id) SELECT min(id), max(id), (SELECT id FROM kind "
                         "WHERE name = 'WarmUpEdge') FROM node")
        _warm(empty_graph)
    assert [record.message for record in caplog.records if "warm" in record.message] == [
        "warmed up: 0 row(s)", "warmed up: 1 row(s)"]


def test_a_failed_warm_up_is_logged_not_raised(database: Database, caplog: pytest.LogCaptureFixture) -> None:
    unreachable = Database(url=database.url.replace("/houndgraph", "/no_such_database"))
    with caplog.at_level(logging.INFO, logger="houndgraph"):
        asyncio.run(warm_up(unreachable))
    assert any(record.message == "warm-up query failed" for record in caplog.records)
