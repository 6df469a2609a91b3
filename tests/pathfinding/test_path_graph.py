"""The path routes find a pair's paths and read their nodes and edges in one statement
(`repository.pair_path_graph`): the same nodes and edges as the plain search (`shortest_paths`, edge ids
first) read back by id."""

from __future__ import annotations

import asyncio
import random

import psycopg
import pytest

from houndgraph.db import Database
from houndgraph.graph import lookup, paths
from houndgraph.graph.budget import WorkBudget
from houndgraph.graph.paths import Direction
from houndgraph.pathfinding import repository
from tests.graph.test_pair_paths import SIZE, draw, load


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("only_first_kind", [False, True])
def test_the_routes_one_statement_answers_the_plain_searchs_nodes_and_edges(empty_graph: Database, seed: int,
                                                                           only_first_kind: bool) -> None:
    """`repository.pair_path_graph` (object ids in; the search and the rows in one statement) against the plain
    search's nodes and edges read back by id, with and without a kinds filter."""
    load(empty_graph, draw(random.Random(seed)))
    with empty_graph.connect_raw(autocommit=True) as conn:
        conn.execute("UPDATE node SET properties = jsonb_build_object('objectid', 'N' || id, 'n', id)")
        conn.execute("UPDATE edge SET properties = jsonb_build_object('e', id)")
        conn.execute("UPDATE node SET kind_ids = ARRAY(SELECT id FROM kind WHERE name IN ('PairB', 'PairA'))")
        kind_ids = [row[0] for row in conn.execute("SELECT id FROM kind WHERE name = 'PairA'").fetchall()]
    kinds = kind_ids if only_first_kind else None
    pairs = [(s + 1, e + 1) for s in range(0, SIZE, 3) for e in range(1, SIZE, 2) if s != e]

    async def run() -> tuple[list, list]:
        new, plain = [], []
        async with await psycopg.AsyncConnection.connect(empty_graph.conninfo) as conn:
            for start, end in pairs:
                new.append(await repository.pair_path_graph(conn, f"n{start}", f"n{end}", kinds, WorkBudget()))
                found = await paths.shortest_paths(conn, [start], [end], kind_ids=kinds, direction=Direction.OUT,
                                                   all_paths=True)
                node_ids = {step for _, _, walk in found for step in walk[0::2]}
                edge_ids = {step for _, _, walk in found for step in walk[1::2]}
                plain.append((await lookup.nodes_by_id(conn, node_ids), await lookup.edges_by_id(conn, edge_ids)))
        return new, plain

    new, plain = asyncio.run(run())
    assert new == plain
    assert sum(1 for nodes, _ in new if nodes) >= 5  # some pairs are connected


def test_the_routes_statement_tells_a_missing_node_from_no_path(empty_graph: Database) -> None:
    load(empty_graph, {(0, 1, 1)})
    with empty_graph.connect_raw(autocommit=True) as conn:
        conn.execute("UPDATE node SET properties = jsonb_build_object('objectid', 'N' || id)")

    async def run(left: str, right: str) -> tuple[list, list] | None:
        async with await psycopg.AsyncConnection.connect(empty_graph.conninfo) as conn:
            return await repository.pair_path_graph(conn, left, right, None, WorkBudget())

    assert asyncio.run(run("N1", "MISSING")) is None
    assert asyncio.run(run("N1", "N1")) == ([], [])
    assert asyncio.run(run("N2", "N1")) == ([], [])
    nodes, edges = asyncio.run(run("n1", "n2"))
    assert [node.id for node in nodes] == [1, 2] and [(edge.start_id, edge.end_id) for edge in edges] == [(1, 2)]


def test_the_paths_members_are_counted_without_enumerating_them() -> None:
    """Two ways 1 -> {2, 3} -> 4, then two edges 4 -> 5: four walks of three edges, seven members each."""
    keys = [(1, 1, 2), (1, 1, 3), (2, 1, 4), (3, 1, 4), (4, 1, 5), (4, 2, 5)]
    assert paths.shortest_path_members(1, 5, keys) == 4 * 7
    assert paths.shortest_path_members(1, 5, []) == 0
