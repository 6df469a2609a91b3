"""Path searches stop at their work budget instead of growing without bound (issue #11, defect 2)."""

from __future__ import annotations

import asyncio
import tracemalloc
from collections.abc import Sequence

import psycopg
import pytest

from houndgraph.db import Database
from houndgraph.graph.budget import WorkBudget, WorkExhausted
from houndgraph.graph.paths import Path, shortest_paths
from tests.conftest import move_node_ids_past_given_ones

WIDTH, LAYERS = 4, 9  # 4^9 = 262 144 shortest paths of 19 members between the two ends


def layered_graph(database: Database) -> tuple[int, int]:
    """source -> WIDTH nodes -> WIDTH nodes ... (LAYERS layers, every node linked to the whole next layer)
    -> target. Returns (source, target)."""
    nodes = 2 + WIDTH * LAYERS
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("INSERT INTO kind (name) VALUES ('MemberOf') ON CONFLICT DO NOTHING")
        conn.execute("INSERT INTO node (id, kind_ids, properties) SELECT i, '{}', "
                     "jsonb_build_object('objectid', 'LAYERED-' || i) FROM generate_series(1, %s) AS i", (nodes,))
        move_node_ids_past_given_ones(conn)
        # Node 1 is the source, node `nodes` the target; layer l (0-based) holds ids 2 + l*WIDTH ...
        conn.execute("""
            WITH layer AS (SELECT i AS id, (i - 2) / %(w)s AS l FROM generate_series(2, %(n)s - 1) AS i)
            INSERT INTO edge (start_id, end_id, kind_id)
            SELECT a.id, b.id, (SELECT id FROM kind WHERE name = 'MemberOf')
            FROM layer a JOIN layer b ON b.l = a.l + 1
            UNION ALL SELECT 1, id, (SELECT id FROM kind WHERE name = 'MemberOf') FROM layer WHERE l = 0
            UNION ALL SELECT id, %(n)s, (SELECT id FROM kind WHERE name = 'MemberOf') FROM layer WHERE l = %(last)s
        """, {"w": WIDTH, "n": nodes, "last": LAYERS - 1})
    return 1, nodes


def search(database: Database, lefts: Sequence[int], rights: Sequence[int], budget: WorkBudget | None = None,
           all_paths: bool = True) -> list[Path]:
    async def run() -> list[Path]:
        async with await psycopg.AsyncConnection.connect(database.conninfo) as conn:
            return await shortest_paths(conn, lefts, rights, kind_ids=None, all_paths=all_paths, budget=budget)
    return asyncio.run(run())


def test_all_shortest_paths_stop_at_the_path_budget_with_bounded_memory(empty_graph: Database) -> None:
    source, target = layered_graph(empty_graph)
    tracemalloc.start()
    try:
        with pytest.raises(WorkExhausted):
            search(empty_graph, [source], [target])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # A million path members as Python lists: tens of MB; every path would take hundreds.
    assert peak < 96 * 1024**2
    # One shortest path is cheap, and a smaller graph's paths all fit.
    assert len(search(empty_graph, [source], [target], all_paths=False)) == 1
    assert len(search(empty_graph, [source], [2 + WIDTH * 2])) == WIDTH * WIDTH


def test_many_to_many_searches_stop_at_the_node_budget(empty_graph: Database) -> None:
    layered_graph(empty_graph)
    everything = list(range(1, 3 + WIDTH * LAYERS))
    with pytest.raises(WorkExhausted):
        search(empty_graph, everything, everything, WorkBudget(max_nodes=100), all_paths=False)
    assert search(empty_graph, everything, everything, WorkBudget(max_nodes=10_000), all_paths=False)


def test_a_search_stops_when_its_deadline_has_passed(empty_graph: Database) -> None:
    source, target = layered_graph(empty_graph)
    with pytest.raises(WorkExhausted):
        search(empty_graph, [source], [target], WorkBudget(expired=lambda: True), all_paths=False)
