"""The edges' copy in memory (houndgraph/graph/projection): the search over it finds the edges of exactly the shortest
paths a plain breadth-first search finds, with or without a kinds filter, and the copy keeps to its size and
survives its files."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from houndgraph.graph.paths import Direction
from houndgraph.graph.projection.csr import EdgeProjection
from houndgraph.graph.projection.search import FLAG_PAST, NodeLimitPassed, PairSearch, not_reached
from tests.graph.test_pair_paths import SIZE, Edge, draw, plain_shortest

# Node ids as the database could hold them: sparse and large (the copy numbers them densely).
FIRST_ID = 5_000_000_000


def node_id(node: int) -> int:
    return FIRST_ID + 7 * node


def projection_of(edges: set[Edge]) -> EdgeProjection:
    ordered = sorted(edges)
    return EdgeProjection.from_edges(np.array([node_id(s) for s, _, _ in ordered], dtype=np.int64),
                                     np.array([10 * k for _, k, _ in ordered], dtype=np.int16),
                                     np.array([node_id(e) for _, _, e in ordered], dtype=np.int64))


def plain_path_edges(edges: set[Edge], start: int, end: int) -> set[tuple[int, int, int]]:
    """The edges of every shortest path, in the copy's terms (node ids, kind ids)."""
    numbered = sorted(edges)
    found = set()
    for walk in plain_shortest(edges, start, end, Direction.OUT, None):
        for number in walk[1::2]:
            s, k, e = numbered[number]
            found.add((node_id(s), 10 * k, node_id(e)))
    return found


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("only_first_kind", [False, True])
def test_the_search_finds_the_edges_of_every_shortest_path(seed: int, only_first_kind: bool) -> None:
    edges = draw(random.Random(seed))
    search = PairSearch(projection_of(edges))
    kept = {edge for edge in edges if edge[1] == 1} if only_first_kind else edges
    connected = 0
    for start in range(SIZE):
        for end in range(SIZE):
            if start == end:
                continue
            _, keys = search.shortest_path_edges(node_id(start), node_id(end), [10] if only_first_kind else None,
                                                 10_000)
            expected = plain_path_edges(kept, start, end)
            assert sorted(keys) == sorted(expected), f"seed {seed}: n{start} -> n{end}"
            connected += bool(expected)
    assert connected >= (20 if only_first_kind else 100), "the random graph connects pairs"


def test_ends_without_edges_or_unknown_have_no_path() -> None:
    search = PairSearch(projection_of({(0, 1, 1), (1, 1, 2)}))
    assert sorted(search.shortest_path_edges(node_id(0), node_id(2), None, 100)[1]) == [
        (node_id(0), 10, node_id(1)), (node_id(1), 10, node_id(2))]
    assert search.shortest_path_edges(node_id(2), node_id(0), None, 100) == (0, [])  # edges are followed forward
    assert search.shortest_path_edges(node_id(0), 12345, None, 100) == (0, [])
    assert search.shortest_path_edges(node_id(0), node_id(2), [20], 100)[1] == []


def test_the_search_stops_past_its_node_limit() -> None:
    # A chain of 50 nodes: the two sides visit about 49 nodes before they meet.
    search = PairSearch(projection_of({(n, 1, n + 1) for n in range(49)}))
    assert len(search.shortest_path_edges(node_id(0), node_id(49), None, 60)[1]) == 49
    with pytest.raises(NodeLimitPassed):
        search.shortest_path_edges(node_id(0), node_id(49), None, 20)


def test_the_copy_takes_at_most_12_bytes_per_edge_and_reads_back_from_its_files(tmp_path: Path) -> None:
    rng = random.Random(7)
    nodes = 10_000
    # Ten edges per node, as the benchmark's enterprise-shaped graph has.
    edges = {(rng.randrange(nodes), rng.randrange(1, 40), rng.randrange(nodes)) for _ in range(10 * nodes)}
    projection = projection_of(edges)
    assert projection.nbytes / projection.edge_count <= 12
    projection.save(tmp_path / "copy")
    mapped = EdgeProjection.load(tmp_path / "copy")
    assert isinstance(mapped.out_nodes.base, np.memmap)  # the file's pages, not a copy
    pairs = [(rng.randrange(nodes), rng.randrange(nodes)) for _ in range(50)]
    fresh, read_back = PairSearch(projection), PairSearch(mapped)
    for start, end in pairs:
        if start != end:
            assert (fresh.shortest_path_edges(node_id(start), node_id(end), None, 10**6)
                    == read_back.shortest_path_edges(node_id(start), node_id(end), None, 10**6))


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("many", [False, True])
def test_the_nodes_a_level_reaches_first_are_the_same_flagged_or_sorted(seed: int, many: bool) -> None:
    # A level's new nodes are sorted out of its edge ends when they are few against the graph's nodes, flagged in
    # an array of one flag per node when many: either way the distinct ends not reached before, in order.
    rng = np.random.default_rng(seed)
    nodes = int(rng.integers(FLAG_PAST, 400))
    depth = np.where(rng.random(nodes) < rng.random(), 0, rng.integers(1, 5, nodes)).astype(np.int32)
    few = (nodes - 1) // FLAG_PAST  # at most this many ends are sorted
    count = int(rng.integers(few + 1, 3 * nodes)) if many else int(rng.integers(1, few + 1))
    assert (count * FLAG_PAST >= nodes) == many
    ends = rng.integers(0, nodes, count).astype(np.int32)
    expected = np.unique(ends[depth[ends] == 0]).astype(np.int64)
    assert not_reached(ends, depth).tolist() == expected.tolist(), f"seed {seed}"
