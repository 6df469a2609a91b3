"""Shortest paths from many sources to few targets (all users -> Domain Admins, every principal -> Tier Zero):
one search from the target side, stopped early under a LIMIT. Each answer is checked against a search
per (source, target) pair: the plain library search and a breadth-first evaluator (`many_sources.Graph`)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import psycopg
import pytest

from houndgraph.db import Database
from houndgraph.graph import level_search, paths
from houndgraph.graph.budget import WorkBudget
from houndgraph.graph.cypher import ast
from houndgraph.graph.cypher.parser import parse
from houndgraph.graph.cypher.translate import shortest
from houndgraph.graph.paths import Path, shortest_paths
from tests.graph.cypher.answers import rows
from tests.graph.cypher.many_sources import (
    PATH_ROW,
    SEEDS,
    drawn,
    expected_paths,
    module_reader,
    outcome,
    run_with_budget,
)


@pytest.fixture(scope="module", autouse=True)
def _module_reader() -> Iterator[None]:
    with module_reader():
        yield


@pytest.mark.parametrize("seed", SEEDS)
def test_many_sources_without_limit_find_every_pair_a_shortest_path(empty_graph: Database, seed: int) -> None:
    graph, sources, targets = drawn(empty_graph, seed)
    expected = expected_paths(graph, sources, targets)
    (one, every) = rows(empty_graph, [
        f"MATCH p=shortestPath((u:A)-[:R*1..]->(t:B)) WHERE u.v >= 1 {PATH_ROW}",
        f"MATCH p=allShortestPaths((u:A)-[:R*1..]->(t:B)) WHERE u.v >= 1 {PATH_ROW}",
    ])
    assert sorted((u, t) for u, t, _ in one) == sorted(expected), f"seed {seed}"
    assert all(tuple(walk) in expected[u, t] for u, t, walk in one), f"seed {seed}"
    assert sorted((u, t, tuple(walk)) for u, t, walk in every) == sorted(
        (u, t, walk) for (u, t), paths in expected.items() for walk in paths), f"seed {seed}"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("edge_id_chunk", [paths.EDGE_ID_CHUNK, 1])
def test_many_sources_with_limit_return_that_many_shortest_paths(empty_graph: Database, seed: int, edge_id_chunk: int,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # The paths of a level are handed out a chunk at a time (by default, all of them at once here).
    monkeypatch.setattr(paths, "EDGE_ID_CHUNK", edge_id_chunk)
    graph, sources, targets = drawn(empty_graph, seed)
    expected = expected_paths(graph, sources, targets)
    all_rows = [(u, t, walk) for (u, t), paths in expected.items() for walk in paths]
    # A filter only the statement can apply (the path's length) drops rows after the search has stopped
    # once: it has to search on until LIMIT rows pass.
    long_rows = [row for row in all_rows if len(row[2]) >= 3]
    limit = 5
    one, every, long, skipped = rows(empty_graph, [
        f"MATCH p=shortestPath((u:A)-[:R*1..]->(t:B)) WHERE u.v >= 1 {PATH_ROW} LIMIT {limit}",
        f"MATCH p=allShortestPaths((u:A)-[:R*1..]->(t:B)) WHERE u.v >= 1 {PATH_ROW} LIMIT {limit}",
        f"MATCH p=allShortestPaths((u:A)-[:R*1..]->(t:B)) WHERE u.v >= 1 AND length(p) >= 2 {PATH_ROW} "
        f"LIMIT {limit}",
        f"MATCH p=allShortestPaths((u:A)-[:R*1..]->(t:B)) WHERE u.v >= 1 {PATH_ROW} SKIP 2 LIMIT {limit}",
    ])
    context = f"seed {seed}: {len(all_rows)} paths"
    assert len(one) == min(limit, len(expected)), context
    assert len({(u, t) for u, t, _ in one}) == len(one), context
    assert all(tuple(walk) in expected[u, t] for u, t, walk in one), context
    assert len(every) == min(limit, len(all_rows)), context
    assert len(long) == min(limit, len(long_rows)), context
    assert len(skipped) == max(0, min(limit, len(all_rows) - 2)), context
    for found in (every, long, skipped):
        assert len({(u, t, tuple(walk)) for u, t, walk in found}) == len(found), context
        assert all(tuple(walk) in expected[u, t] for u, t, walk in found), context
    assert all(len(walk) >= 3 for _, _, walk in long), context


@pytest.mark.parametrize("seed", SEEDS)
def test_a_limit_after_an_earlier_match_stops_the_search_early_with_shortest_paths(empty_graph: Database,
                                                                                   seed: int) -> None:
    graph, sources, targets = drawn(empty_graph, seed)
    expected = expected_paths(graph, sources, targets)
    query = (f"MATCH (t:B) WHERE t.v >= 0 MATCH p=shortestPath((u:A)-[:R*1..]->(t)) WHERE u.v >= 1 {PATH_ROW} "
             "LIMIT 3")
    # The search may stop once three paths pass: the rows of an earlier MATCH only multiply the paths'.
    assert shortest.rows_wanted(parse(query)) == (0, 3)
    assert shortest.rows_wanted(parse(query.replace("MATCH (t:B)", "OPTIONAL MATCH (t:B)"))) is None
    (limited,) = rows(empty_graph, [query])
    assert len(limited) == min(3, len(expected)), f"seed {seed}"
    assert len({(u, t) for u, t, _ in limited}) == len(limited), f"seed {seed}"
    assert all(tuple(walk) in expected[u, t] for u, t, walk in limited), f"seed {seed}"


def _searches(database: Database, searches: list[tuple[list[int], list[int]]],
              direction: paths.Direction = paths.Direction.OUT, max_depth: int | None = None) -> list[list[Path]]:
    async def run() -> list[list[Path]]:
        async with await psycopg.AsyncConnection.connect(database.conninfo) as conn:
            return [await shortest_paths(conn, lefts, rights, kind_ids=None, all_paths=True, direction=direction,
                                         max_depth=max_depth)
                    for lefts, rights in searches]
    return asyncio.run(run())


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("pair_search_cost", [level_search.PAIR_SEARCH_COST, 1, 0, 10**9])
@pytest.mark.parametrize(("direction", "max_depth"), [(direction, None) for direction in paths.Direction]
                         + [(paths.Direction.OUT, 3), (paths.Direction.BOTH, 2)])
def test_one_search_from_the_target_finds_the_paths_of_a_search_per_pair(
        empty_graph: Database, seed: int, pair_search_cost: int, direction: paths.Direction, max_depth: int | None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The cheaper a goal's own search is taken to be, the sooner the search from the target lets the goals
    # left search toward it, and the more levels they advance instead of it (all of them when it costs
    # nothing, none when it costs more than any frontier). The goals' searches carry on from one target to the
    # next. Every way must find the paths of a search per pair.
    _, sources, targets = drawn(empty_graph, seed)
    lefts, rights = [s + 1 for s in sources], [t + 1 for t in targets]  # node ids
    expected = _pair_by_pair(empty_graph, seed, lefts, rights, direction, max_depth)
    monkeypatch.setattr(level_search, "PAIR_SEARCH_COST", pair_search_cost)
    (together,) = _searches(empty_graph, [(lefts, rights)], direction, max_depth)
    # The same paths; a pair's own paths may come in another order.
    assert sorted(map(repr, together)) == expected, f"seed {seed}"


_pair_paths: dict[tuple[int, paths.Direction, int | None], list[str]] = {}


def _pair_by_pair(database: Database, seed: int, lefts: list[int], rights: list[int], direction: paths.Direction,
                  max_depth: int | None) -> list[str]:
    """The paths of a search per (source, target) pair, as sorted reprs: searched once per drawn graph and search,
    not again for each pair search cost of the search from the target (a graph is loaded with the same ids each
    time it is drawn)."""
    key = (seed, direction, max_depth)
    if key not in _pair_paths:
        per_pair = _searches(database, [([s], [t]) for s in lefts for t in rights], direction, max_depth)
        _pair_paths[key] = sorted(repr(path) for found in per_pair for path in found)
    return _pair_paths[key]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("form", ["(u:A)-[:R*1..]->(t:B)", "(u:A)-[:R*1..]-(t:B)", "(u:A {name: 'n1'})-[:R*1..]-(t:B)"])
def test_the_path_kept_among_equally_short_ones_does_not_hang_on_the_plan(
        empty_graph: Database, seed: int, form: str) -> None:
    # shortestPath keeps one of a pair's equally short paths: the same one whichever plan PostgreSQL picks for a
    # level's edges (a plan follows the table's statistics, which autovacuum refreshes when it likes).
    drawn(empty_graph, seed)
    query = f"MATCH p=shortestPath({form}) WHERE u.v >= 0 {PATH_ROW}"
    plain = sorted(map(repr, run_with_budget(empty_graph, query, WorkBudget())))
    for setting in ("enable_hashagg", "enable_hashjoin", "enable_mergejoin", "enable_seqscan", "enable_indexscan"):
        assert sorted(map(repr, run_with_budget(empty_graph, query, WorkBudget(), setting))) == plain, \
            f"seed {seed}, {setting} off"


# An earlier MATCH picks the targets (the UI's "shortest paths to domain controllers"), and the sources are told
# apart from them: the end point queries leave out `u <> t` and list the sources once, not once per target.
EARLIER_MATCH_FORMS = [
    "MATCH (t:B) WHERE t.v >= 1 MATCH p=shortestPath((u:A)-[:R*1..]->(t)) WHERE u <> t AND u.v >= 1",
    "MATCH (t:B) MATCH p=shortestPath((u)-[:R*1..]->(t)) WHERE NOT t = u",
    "MATCH (t:B) MATCH p=allShortestPaths((u:A)-[:R*1..]-(t)) WHERE t <> u",
    "MATCH (t:B) WHERE t.v = 0 MATCH p=shortestPath((u:A)-[:R*1..]->(t)) WHERE u <> t AND u.v >= t.v",
    "MATCH (t) WHERE t.v = 3 MATCH p=shortestPath((u:B)-[:R*0..]->(t)) WHERE u <> t",
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("form", EARLIER_MATCH_FORMS)
def test_ends_picked_by_an_earlier_match_answer_as_the_plain_end_point_queries(
        empty_graph: Database, seed: int, form: str, monkeypatch: pytest.MonkeyPatch) -> None:
    drawn(empty_graph, seed)
    request = shortest.requests(parse(f"{form} RETURN p"), {"A": 1, "B": 2, "R": 3})[0]
    sources = request.sources.parts[0].clauses
    independent = "u.v >= t.v" not in form and "*0.." not in form
    # The plan, without timing: the sources' query takes one earlier row (WITH ... LIMIT 1), and no `u <> t`.
    assert any(isinstance(c, ast.With) and c.projection.limit is not None for c in sources) is independent, form
    assert ("<>" in repr(sources) or "'NOT'" in repr(sources)) is ("*0.." in form), form
    queries = [f"{form} {PATH_ROW}", f"{form} {PATH_ROW} LIMIT 2", f"{form} RETURN count(p)"]
    budgets = [WorkBudget(), WorkBudget(max_rows=2), WorkBudget(max_path_members=12)]
    for query in queries:
        with monkeypatch.context() as plain:
            plain.setattr(shortest, "_other_end", lambda *args: None)
            plain.setattr(shortest, "_one_earlier_row_enough", lambda *args: False)
            expected = [outcome(empty_graph, query, budget) for budget in budgets]
        found = [outcome(empty_graph, query, budget) for budget in budgets]
        assert found == expected, f"seed {seed}: {query}"
