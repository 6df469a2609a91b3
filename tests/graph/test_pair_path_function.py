"""One source and one target searched inside PostgreSQL (`paths.pair_paths`, the path routes' search, migration
0025): the same shortest paths as a plain breadth-first search, forward and backward, with a kinds filter, one
path when not all are asked for, and the node budget."""

from __future__ import annotations

import asyncio
import random
from collections import Counter

import psycopg
import pytest

from houndgraph.db import Database
from houndgraph.graph import paths
from houndgraph.graph.budget import WorkBudget, WorkExhausted
from houndgraph.graph.paths import Direction
from tests.graph.test_pair_paths import SIZE, Edge, draw, load, plain_shortest


def kind_numbers(database: Database) -> dict[int, int]:
    """Each test kind's id by its number in `draw` (PairA 1, PairB 2)."""
    with database.connect_raw() as conn:
        rows = conn.execute("SELECT name, id FROM kind WHERE name IN ('PairA', 'PairB')").fetchall()
    return {id_: {"PairA": 1, "PairB": 2}[name] for name, id_ in rows}


def as_numbers(walk: paths.Walk, numbered: dict[Edge, int], kinds: dict[int, int]) -> tuple[int, ...]:
    """A walk of node ids and edge keys in the plain search's terms: nodes from 0, edges by number."""
    steps: list[int] = []
    for place, step in enumerate(walk):
        if place % 2 == 0:
            assert isinstance(step, int)
            steps.append(step - 1)
        else:
            assert isinstance(step, tuple)
            start, kind, end = step
            steps.append(numbered[(start - 1, kinds[kind], end - 1)])
    return tuple(steps)


def pair_search(database: Database, pairs: list[tuple[int, int]], direction: Direction,
                kind_ids: list[int] | None, all_paths: bool = True) -> list[list[paths.KeyPath]]:
    async def run() -> list[list[paths.KeyPath]]:
        async with await psycopg.AsyncConnection.connect(database.conninfo) as conn:
            return [await paths.pair_paths(conn, s + 1, e + 1, kind_ids=kind_ids, direction=direction,
                                           all_paths=all_paths) for s, e in pairs]
    return asyncio.run(run())


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("direction", [Direction.OUT, Direction.IN])
@pytest.mark.parametrize("only_first_kind", [False, True])
def test_the_search_in_postgresql_finds_the_shortest_paths_of_a_plain_search(
        empty_graph: Database, seed: int, direction: Direction, only_first_kind: bool) -> None:
    edges = draw(random.Random(seed))
    load(empty_graph, edges)
    kinds = kind_numbers(empty_graph)
    numbered = {edge: number for number, edge in enumerate(sorted(edges))}
    kept = {edge for edge in edges if edge[1] == 1} if only_first_kind else edges
    kind_ids = [id_ for id_, number in kinds.items() if number == 1] if only_first_kind else None
    pairs = [(s, e) for s in range(0, SIZE, 2) for e in range(1, SIZE, 2)]
    connected = 0
    for (start, end), found in zip(pairs, pair_search(empty_graph, pairs, direction, kind_ids), strict=True):
        # The plain search numbers the kept edges among themselves: renumber its walks as all edges.
        renumber = dict(enumerate(sorted(kept)))
        expected = Counter({tuple(step if place % 2 == 0 else numbered[renumber[step]]
                                  for place, step in enumerate(walk)): count
                            for walk, count in plain_shortest(kept, start, end, direction, None).items()})
        assert all((left, right) == (start + 1, end + 1) for left, right, _ in found)
        assert Counter(as_numbers(walk, numbered, kinds) for _, _, walk in found) == expected, \
            f"seed {seed}: n{start} -> n{end}"
        connected += bool(expected)
    # Half the edges are of the first kind: fewer pairs are connected over them alone.
    assert connected >= (2 if only_first_kind else 10), "the random graph connects pairs"


@pytest.mark.parametrize("seed", range(2))
def test_one_path_asked_for_is_one_of_the_shortest(empty_graph: Database, seed: int) -> None:
    edges = draw(random.Random(seed))
    load(empty_graph, edges)
    kinds = kind_numbers(empty_graph)
    numbered = {edge: number for number, edge in enumerate(sorted(edges))}
    pairs = [(s, e) for s in range(0, SIZE, 3) for e in range(1, SIZE, 2) if s != e]
    for (start, end), found in zip(pairs, pair_search(empty_graph, pairs, Direction.OUT, None, all_paths=False),
                                   strict=True):
        expected = plain_shortest(edges, start, end, Direction.OUT, None)
        assert len(found) == (1 if expected else 0)
        assert all(as_numbers(walk, numbered, kinds) in expected for _, _, walk in found)


def test_a_search_past_the_node_budget_stops(empty_graph: Database) -> None:
    """0 -> 1..20 -> 21: the search visits the 20 middle nodes and the target; a budget of 10 nodes stops it."""
    edges = {(0, 1, i) for i in range(1, 21)} | {(i, 1, 21) for i in range(1, 21)}
    load(empty_graph, edges)

    async def run(budget: WorkBudget) -> list[paths.KeyPath]:
        async with await psycopg.AsyncConnection.connect(empty_graph.conninfo) as conn:
            return await paths.pair_paths(conn, 1, 22, kind_ids=None, all_paths=True, budget=budget)

    assert len(asyncio.run(run(WorkBudget(max_nodes=100)))) == 20
    with pytest.raises(WorkExhausted):
        asyncio.run(run(WorkBudget(max_nodes=10)))


def test_a_small_frontier_of_high_degree_nodes_still_finds_every_shortest_path(empty_graph: Database) -> None:
    """0 -> 1, 2 (hubs with 24 edges each to 3..26), 1 -> 27, 2 -> 27 -> 28 <- 29 <- 27: the left side's two
    hubs read more edges than the right side's members, so the right side advances there (the edge count
    decides, not the frontier's size); the paths are the plain search's."""
    edges = {(0, 1, 1), (0, 1, 2)} | {(hub, 1, n) for hub in (1, 2) for n in range(3, 27)}
    edges |= {(1, 1, 27), (2, 2, 27), (27, 1, 28), (27, 1, 29), (29, 1, 28)}
    load(empty_graph, edges)
    kinds = kind_numbers(empty_graph)
    numbered = {edge: number for number, edge in enumerate(sorted(edges))}
    (found,) = pair_search(empty_graph, [(0, 28)], Direction.OUT, None)
    expected = plain_shortest(edges, 0, 28, Direction.OUT, None)
    assert Counter(as_numbers(walk, numbered, kinds) for _, _, walk in found) == expected
    assert sum(expected.values()) == 2


HUB_SIZE = 90


def draw_with_hubs(rng: random.Random) -> set[Edge]:
    """A sparse random graph of two kinds with hubs: three nodes with 30-60 edges out, three with 30-60 in,
    so that a side's capped edge count is reached (16 per node of the other side's frontier) and the other
    side's edges are counted before a level is read."""
    edges = {(rng.randrange(HUB_SIZE), rng.randrange(1, 3), rng.randrange(HUB_SIZE)) for _ in range(HUB_SIZE * 2)}
    for hub in rng.sample(range(HUB_SIZE), 6):
        spokes = rng.sample(range(HUB_SIZE), rng.randint(30, 60))
        outward = hub % 2 == 0
        edges |= {(hub, rng.randrange(1, 3), n) if outward else (n, rng.randrange(1, 3), hub) for n in spokes}
    return {(s, k, e) for s, k, e in edges if s != e}


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("direction", [Direction.OUT, Direction.IN])
@pytest.mark.parametrize("only_first_kind", [False, True])
def test_hubs_on_either_side_leave_the_shortest_paths_those_of_a_plain_search(
        empty_graph: Database, seed: int, direction: Direction, only_first_kind: bool) -> None:
    rng = random.Random(100 + seed)
    edges = draw_with_hubs(rng)
    load(empty_graph, edges, HUB_SIZE)
    kinds = kind_numbers(empty_graph)
    numbered = {edge: number for number, edge in enumerate(sorted(edges))}
    kept = {edge for edge in edges if edge[1] == 1} if only_first_kind else edges
    renumber = dict(enumerate(sorted(kept)))
    kind_ids = [id_ for id_, number in kinds.items() if number == 1] if only_first_kind else None
    pairs = [(s, e) for s, e in (rng.sample(range(HUB_SIZE), 2) for _ in range(150))]
    lengths = Counter()
    for (start, end), found in zip(pairs, pair_search(empty_graph, pairs, direction, kind_ids), strict=True):
        expected = Counter({tuple(step if place % 2 == 0 else numbered[renumber[step]]
                                  for place, step in enumerate(walk)): count
                            for walk, count in plain_shortest(kept, start, end, direction, None).items()})
        assert Counter(as_numbers(walk, numbered, kinds) for _, _, walk in found) == expected, \
            f"seed {seed}: n{start} -> n{end}"
        lengths.update(len(walk) // 2 for walk in expected)
    # Paths of several lengths, so that the sides meet after a varying number of levels each.
    assert len(lengths) >= 3, lengths
