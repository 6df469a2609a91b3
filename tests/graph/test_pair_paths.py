"""One source and one target: the bidirectional search finds exactly the shortest paths a plain breadth-first
search from the source finds, in every direction, with a depth limit, whichever side advances (both at once,
or the smaller one), and when the two searches meet by the edges between their frontiers alone."""

from __future__ import annotations

import asyncio
import random
from collections import Counter, deque

import psycopg
import pytest

from houndgraph.db import Database
from houndgraph.graph import level_search, paths
from houndgraph.graph.paths import Direction
from tests.conftest import move_node_ids_past_given_ones

SIZE = 30
Edge = tuple[int, int, int]  # (start node, kind, end node), nodes numbered from 0


def draw(rng: random.Random) -> set[Edge]:
    """Random edges of two kinds (a pair of nodes may be linked by both, and both ways)."""
    count = rng.randint(SIZE, 3 * SIZE)
    edges = {(rng.randrange(SIZE), rng.randrange(1, 3), rng.randrange(SIZE)) for _ in range(count)}
    return {(s, k, e) for s, k, e in edges if s != e}


def plain_shortest(edges: set[Edge], start: int, end: int, direction: Direction,
                   max_depth: int | None) -> Counter[tuple[int, ...]]:
    """Every shortest walk start -> end as [node, edge, node, ...] with edges numbered by their place in
    `sorted(edges)`, counted (a pair of nodes linked by two edges gives two walks)."""
    numbered = {edge: number for number, edge in enumerate(sorted(edges))}
    steps: dict[int, list[tuple[int, int]]] = {}  # node -> (edge number, neighbour)
    for (s, _, e), number in numbered.items():
        if direction in (Direction.OUT, Direction.BOTH):
            steps.setdefault(s, []).append((number, e))
        if direction in (Direction.IN, Direction.BOTH):
            steps.setdefault(e, []).append((number, s))
    depth, parents, queue = {start: 0}, {start: []}, deque([start])
    while queue:
        node = queue.popleft()
        for number, neighbour in steps.get(node, []):
            if neighbour not in depth:
                depth[neighbour], parents[neighbour] = depth[node] + 1, [(number, node)]
                queue.append(neighbour)
            elif depth[neighbour] == depth[node] + 1:
                parents[neighbour].append((number, node))
    if end not in depth or (max_depth is not None and depth[end] > max_depth):
        return Counter()

    def walks(node: int) -> list[tuple[int, ...]]:
        if node == start:
            return [(start,)]
        return [(*walk, number, node) for number, parent in parents[node] for walk in walks(parent)]

    return Counter(walks(end))


def load(database: Database, edges: set[Edge], size: int = SIZE) -> dict[int, int]:
    """The graph of `size` nodes in the database; returns each edge's number (as in `plain_shortest`) by its
    edge id."""
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("TRUNCATE edge, node RESTART IDENTITY CASCADE")
        conn.execute("INSERT INTO kind (name) VALUES ('PairA'), ('PairB') ON CONFLICT (name) DO NOTHING")
        conn.execute("INSERT INTO node (id, kind_ids, properties) SELECT i, '{}', '{}' FROM generate_series(1, %s) i",
                     (size,))
        move_node_ids_past_given_ones(conn)
        numbers = {}
        for number, (s, k, e) in enumerate(sorted(edges)):
            row = conn.execute("INSERT INTO edge (start_id, end_id, kind_id) SELECT %s, %s, id FROM kind "
                               "WHERE name = %s RETURNING id", (s + 1, e + 1, f"Pair{'AB'[k - 1]}")).fetchone()
            assert row is not None
            numbers[row[0]] = number
    return numbers


def searched(database: Database, pairs: list[tuple[int, int]], direction: Direction,
             max_depth: int | None) -> list[list[paths.Path]]:
    async def run() -> list[list[paths.Path]]:
        async with await psycopg.AsyncConnection.connect(database.conninfo) as conn:
            return [await paths.shortest_paths(conn, [s + 1], [e + 1], kind_ids=None, direction=direction,
                                               max_depth=max_depth, all_paths=True) for s, e in pairs]
    return asyncio.run(run())


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("joint_expansion", [level_search.JOINT_EXPANSION, 0])
@pytest.mark.parametrize(("direction", "max_depth"), [(direction, None) for direction in Direction]
                         + [(Direction.OUT, 2), (Direction.BOTH, 3)])
def test_a_pair_search_finds_the_shortest_paths_of_a_plain_search(
        empty_graph: Database, seed: int, joint_expansion: int, direction: Direction, max_depth: int | None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(level_search, "JOINT_EXPANSION", joint_expansion)
    rng = random.Random(seed)
    edges = draw(rng)
    numbers = load(empty_graph, edges)
    pairs = [(s, e) for s in range(0, SIZE, 3) for e in range(1, SIZE, 2) if s != e]
    found = searched(empty_graph, pairs, direction, max_depth)
    connected = 0
    for (start, end), walks in zip(pairs, found, strict=True):
        expected = plain_shortest(edges, start, end, direction, max_depth)
        got = Counter(tuple(step - 1 if place % 2 == 0 else numbers[step] for place, step in enumerate(walk))
                      for _, _, walk in walks)
        assert got == expected, f"seed {seed}: n{start} -> n{end}"
        connected += bool(expected)
    assert connected >= 10, "the random graph connects pairs"


def test_when_both_sides_reach_common_nodes_only_the_edges_onto_them_come_back(empty_graph: Database) -> None:
    """Left 0 reaches 1-3, right 29 is reached from 20-24; 1 -> 10 -> 20 joins them through 10. The level where
    both sides advance reads every edge of both frontiers, but hands back only the two onto node 10, and the
    search still finds the one path, as the plain search does."""
    edges = {(0, 1, 1), (0, 1, 2), (0, 1, 3), *((20 + i, 1, 29) for i in range(5)), (1, 1, 10), (10, 1, 20)}
    edges |= {(2, 1, 11), (3, 1, 12), (3, 2, 13)} | {(14 + i, 1, 21 + i % 4) for i in range(6)}
    numbers = load(empty_graph, edges)

    async def level() -> list[level_search.Rows]:
        async with await psycopg.AsyncConnection.connect(empty_graph.conninfo) as conn:
            met, rows = await level_search.meeting_level(conn, [([2, 3, 4], True), ([21, 22, 23, 24, 25], False)], 1,
                                                   [21, 22, 23, 24, 25], None, joint=True)
            assert not met
            return rows

    forward, backward = asyncio.run(level())
    assert [(node, neighbour) for node, _, neighbour in forward] == [(2, 11)]
    assert [(node, neighbour) for node, _, neighbour in backward] == [(21, 11)]
    (walks,) = searched(empty_graph, [(0, 29)], Direction.OUT, None)
    expected = plain_shortest(edges, 0, 29, Direction.OUT, None)
    assert Counter(tuple(step - 1 if place % 2 == 0 else numbers[step] for place, step in enumerate(walk))
                   for _, _, walk in walks) == expected
    assert sum(expected.values()) == 1
