"""Cypher's shortest path searches over the edges' copy in memory (the hook in `graph.paths.shortest_path_batches`):
the many-sources checks of tests/graph/cypher/test_shortest_many_sources.py, run again with every search of a few
roots answered from the copy, give the same verdicts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from houndgraph.db import Database
from houndgraph.graph import level_search, paths
from houndgraph.graph.projection.reading import read_projection
from houndgraph.graph.projection.search import PairSearch
from tests.graph.cypher import test_shortest_many_sources as many


@pytest.fixture
def in_memory(empty_graph: Database, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[PairSearch]]:
    """Every search of the graph library answered from a copy of the edges read when it starts; the copies made.
    One connection reads them all (a connection per search would cost more than the searches)."""
    made: list[PairSearch] = []

    with empty_graph.connect_raw() as reading:
        def attached(conn: Any) -> PairSearch:
            _, projection = read_projection(reading)
            made.append(PairSearch(projection))
            return made[-1]

        monkeypatch.setattr(paths, "attached_search", attached)
        yield made


@pytest.mark.parametrize("seed", many.SEEDS)
def test_many_sources_without_limit_find_every_pair_a_shortest_path(empty_graph: Database, seed: int,
                                                                    in_memory: list[PairSearch]) -> None:
    many.test_many_sources_without_limit_find_every_pair_a_shortest_path(empty_graph, seed)
    assert in_memory, "the copy answered"


@pytest.mark.parametrize("seed", many.SEEDS)
def test_many_sources_with_limit_return_that_many_shortest_paths(empty_graph: Database, seed: int,
                                                                 in_memory: list[PairSearch],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    many.test_many_sources_with_limit_return_that_many_shortest_paths(empty_graph, seed, 1, monkeypatch)
    assert in_memory, "the copy answered"


@pytest.mark.parametrize("seed", many.SEEDS)
def test_a_limit_after_an_earlier_match_stops_the_search_early_with_shortest_paths(
        empty_graph: Database, seed: int, in_memory: list[PairSearch]) -> None:
    many.test_a_limit_after_an_earlier_match_stops_the_search_early_with_shortest_paths(empty_graph, seed)


@pytest.mark.parametrize("seed", many.SEEDS)
@pytest.mark.parametrize(("direction", "max_depth"), [(paths.Direction.OUT, None), (paths.Direction.IN, None),
                                                      (paths.Direction.OUT, 3), (paths.Direction.OUT, 1)])
def test_one_search_from_the_targets_finds_the_paths_of_a_search_per_pair(
        empty_graph: Database, seed: int, direction: paths.Direction, max_depth: int | None,
        in_memory: list[PairSearch], monkeypatch: pytest.MonkeyPatch) -> None:
    many.test_one_search_from_the_target_finds_the_paths_of_a_search_per_pair(
        empty_graph, seed, level_search.PAIR_SEARCH_COST, direction, max_depth, monkeypatch)
    assert in_memory, "the copy answered"


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("form", many.SHORTEST_FORMS)
def test_the_path_budget_bound_refuses_only_what_the_search_refuses(
        empty_graph: Database, seed: int, form: str, in_memory: list[PairSearch],
        monkeypatch: pytest.MonkeyPatch) -> None:
    many.test_the_path_budget_bound_refuses_only_what_the_search_refuses(empty_graph, seed, form, monkeypatch)

