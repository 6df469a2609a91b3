"""The planner's kind statistics are kept per process while the graph generation holds (and for at most
`MAX_AGE_SECONDS`): what they hold is what the database has, read again once the graph was written."""

from __future__ import annotations

import asyncio
import uuid

import psycopg

from houndgraph.db import Database
from houndgraph.graph.cypher.statistics import KindStatistics, kind_statistics, read_kind_statistics
from houndgraph.graph.kind_catalogue import graph_generation_seen, kind_map


def add_nodes(database: Database, kind: str, count: int) -> None:
    batch = uuid.uuid4().hex[:6]
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("INSERT INTO kind (name) VALUES (%s) ON CONFLICT DO NOTHING", (kind,))
        conn.execute("INSERT INTO node (kind_ids, properties) SELECT ARRAY[(SELECT id FROM kind WHERE name = %s)], "
                     "jsonb_build_object('objectid', %s || i) FROM generate_series(1, %s) AS i",
                     (kind, f"{kind}-{batch}-", count))
        conn.execute("ANALYZE node")


async def readings(database: Database) -> tuple[int, KindStatistics | None, KindStatistics | None, dict[str, int]]:
    """The generation, the statistics through the cache and as read directly, and the kinds."""
    async with await psycopg.AsyncConnection.connect(database.conninfo) as conn:
        kinds = await kind_map(conn)
        generation = graph_generation_seen()
        assert generation is not None
        return generation, await kind_statistics(conn, generation), await read_kind_statistics(conn), kinds


def test_the_statistics_are_read_again_once_the_graph_was_written(empty_graph: Database) -> None:
    common, rare = f"Common{uuid.uuid4().hex[:6]}", f"Rare{uuid.uuid4().hex[:6]}"
    add_nodes(empty_graph, common, 300)
    add_nodes(empty_graph, rare, 10)
    generation, cached, direct, kinds = asyncio.run(readings(empty_graph))
    assert cached == direct and cached is not None
    assert cached.nodes_of([kinds[common]]) > cached.nodes_of([kinds[rare]])

    again, kept, _, _ = asyncio.run(readings(empty_graph))
    assert again == generation and kept is cached, "no write since: the reading is kept"

    add_nodes(empty_graph, rare, 1000)
    moved, fresh, direct, kinds = asyncio.run(readings(empty_graph))
    assert moved != generation
    assert fresh == direct and fresh is not None
    assert fresh.nodes_of([kinds[rare]]) > fresh.nodes_of([kinds[common]]), "the new rows count"
