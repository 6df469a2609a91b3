"""Cypher's shortest path searches over the edges' copy in memory (the hook in `graph.paths.shortest_path_batches`):
the many-sources checks of tests/graph/cypher/test_shortest_many_sources.py and test_shortest_path_budget.py, run
again with every search of a few roots answered from the copy, give the same verdicts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from psycopg.types.json import Jsonb

from houndgraph.db import Database
from houndgraph.graph import level_search, paths
from houndgraph.graph.budget import WorkBudget
from houndgraph.graph.cypher import statement
from houndgraph.graph.projection import walks
from houndgraph.graph.projection.reading import read_projection
from houndgraph.graph.projection.search import PairSearch
from tests.conftest import move_node_ids_past_given_ones
from tests.graph.cypher import many_sources
from tests.graph.cypher import test_shortest_many_sources as many
from tests.graph.cypher import test_shortest_path_budget as budgets
from tests.graph.cypher.answers import rows

# The many-sources module's reader (one connection and event loop for its queries), for its checks run again here.
_module_reader = many._module_reader


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


@pytest.mark.parametrize("seed", many_sources.SEEDS)
def test_many_sources_without_limit_find_every_pair_a_shortest_path(empty_graph: Database, seed: int,
                                                                    in_memory: list[PairSearch]) -> None:
    many.test_many_sources_without_limit_find_every_pair_a_shortest_path(empty_graph, seed)
    assert in_memory, "the copy answered"


@pytest.mark.parametrize("seed", many_sources.SEEDS)
def test_many_sources_with_limit_return_that_many_shortest_paths(empty_graph: Database, seed: int,
                                                                 in_memory: list[PairSearch],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    many.test_many_sources_with_limit_return_that_many_shortest_paths(empty_graph, seed, 1, monkeypatch)
    assert in_memory, "the copy answered"


@pytest.mark.parametrize("seed", many_sources.SEEDS)
def test_a_limit_after_an_earlier_match_stops_the_search_early_with_shortest_paths(
        empty_graph: Database, seed: int, in_memory: list[PairSearch]) -> None:
    many.test_a_limit_after_an_earlier_match_stops_the_search_early_with_shortest_paths(empty_graph, seed)


@pytest.mark.parametrize("seed", many_sources.SEEDS)
@pytest.mark.parametrize(("direction", "max_depth"), [(paths.Direction.OUT, None), (paths.Direction.IN, None),
                                                      (paths.Direction.OUT, 3), (paths.Direction.OUT, 1)])
def test_one_search_from_the_targets_finds_the_paths_of_a_search_per_pair(
        empty_graph: Database, seed: int, direction: paths.Direction, max_depth: int | None,
        in_memory: list[PairSearch], monkeypatch: pytest.MonkeyPatch) -> None:
    many.test_one_search_from_the_target_finds_the_paths_of_a_search_per_pair(
        empty_graph, seed, level_search.PAIR_SEARCH_COST, direction, max_depth, monkeypatch)
    assert in_memory, "the copy answered"


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("form", budgets.SHORTEST_FORMS)
def test_the_path_budget_bound_refuses_only_what_the_search_refuses(
        empty_graph: Database, seed: int, form: str, in_memory: list[PairSearch],
        monkeypatch: pytest.MonkeyPatch) -> None:
    budgets.test_the_path_budget_bound_refuses_only_what_the_search_refuses(empty_graph, seed, form, monkeypatch)


@pytest.mark.parametrize("seed", many_sources.SEEDS)
@pytest.mark.parametrize("level_chunk", [paths.LEVEL_CHUNK, 1])
def test_a_side_too_large_to_list_read_as_the_search_reaches_it_gives_the_rows_of_listing_it(
        empty_graph: Database, seed: int, level_chunk: int, in_memory: list[PairSearch],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Many sources to one target under a LIMIT: the search from the target asks which of each level's nodes are
    sources (a chunk of them at a time), never listing them all, and answers the rows, in their order, of the search
    that lists them. The probe of a side reads MAX_ROOTS + 2 rows here: enough to tell the sources are the large side,
    and too few to read them whole (a side read whole goes to the search that lists both)."""
    monkeypatch.setattr(paths, "LEVEL_CHUNK", level_chunk)
    monkeypatch.setattr(statement, "SIDE_PROBE_ROWS", statement.MAX_ROOTS + 2)
    asked: list[int] = []
    member_filter = statement._member_filter

    def counted_filter(*args: Any) -> Any:
        asked.append(1)
        return member_filter(*args)

    monkeypatch.setattr(statement, "_member_filter", counted_filter)
    graph, _, targets = many_sources.drawn(empty_graph, seed)
    # The target most nodes reach.
    name = f"n{max(targets, key=lambda t: sum(bool(graph.shortest(s, t)) for s in range(many_sources.SIZE)))}"
    row = many_sources.PATH_ROW
    queries = [
        f"MATCH p=shortestPath((u:A)-[:R*1..]->(t:B)) WHERE u.v >= 1 AND t.name = '{name}' {row} LIMIT 7",
        f"MATCH p=allShortestPaths((u:A)-[:R*1..]->(t:B)) WHERE u.v >= 1 AND t.name = '{name}' {row} SKIP 1 LIMIT 7",
        # Edges followed backwards from the left end; the small side on the left, at most three hops.
        f"MATCH p=shortestPath((t:B)<-[:R*1..]-(u:A)) WHERE u.v >= 1 AND t.name = '{name}' {row} LIMIT 7",
        f"MATCH p=shortestPath((t:B)-[:R*1..3]->(u:A)) WHERE t.name = '{name}' {row} LIMIT 7",
        # A filter of the statement drops rows: the search goes on past its first LIMIT rows.
        f"MATCH p=allShortestPaths((u:A)-[:R*1..]->(t:B)) WHERE t.name = '{name}' AND length(p) >= 2 {row} LIMIT 7",
    ]
    filtered_searches: list[int] = []
    filtered = paths.filtered_path_batches

    def counted(*args: Any, **kwargs: Any) -> Any:
        filtered_searches.append(1)
        return filtered(*args, **kwargs)

    monkeypatch.setattr(paths, "filtered_path_batches", counted)
    answered = rows(empty_graph, queries)
    assert len(filtered_searches) == len(queries), f"seed {seed}: every query read its large side as it searched"
    assert len(asked) == len(queries), f"seed {seed}"
    monkeypatch.setattr(paths, "searches_few_roots_in_memory", lambda conn, direction: False)
    listed = rows(empty_graph, queries)
    assert any(answered), f"seed {seed}"
    for query, got, expected in zip(queries, answered, listed, strict=True):
        assert len(got) == len(expected), f"seed {seed}: {query}"
        if "allShortestPaths" not in query:
            # One path per pair, found in the same order: the same rows, whatever order the statement gives them in.
            assert sorted(got) == sorted(expected), f"seed {seed}: {query}"
            continue
        # Several paths per pair: a LIMIT over the statement's rows may keep others of the same length.
        for source, target, walk in got:
            assert tuple(walk) in graph.shortest(int(source[1:]), int(target[1:])), f"seed {seed}: {query}"
        assert len(set(map(repr, got))) == len(got), f"seed {seed}: {query}"
        assert all(len(walk) >= 3 for _, _, walk in got) or "length(p)" not in query, f"seed {seed}: {query}"


@pytest.mark.parametrize("shortest_form", ["shortestPath", "allShortestPaths"])
def test_a_search_to_a_side_read_whole_ends_once_it_has_met_every_node_of_it(
        empty_graph: Database, shortest_form: str, in_memory: list[PairSearch]) -> None:
    # A chain n0 -> n1 -> ... -> n199 and a shortcut n0 -> n3: from the one source n0 to the five targets n2..n6, read
    # whole, the search (under a LIMIT no answer reaches) meets the last target at its fourth level and goes no
    # further down the chain.
    with empty_graph.connect_raw(autocommit=True) as conn:
        conn.execute("INSERT INTO kind (name) VALUES ('S'), ('T'), ('N'), ('R') ON CONFLICT (name) DO NOTHING")
        for node in range(200):
            label = "S" if node == 0 else "T" if 2 <= node <= 6 else "N"
            conn.execute("INSERT INTO node (id, kind_ids, properties) SELECT %s, ARRAY[id], %s FROM kind "
                         "WHERE name = %s", (node + 1, Jsonb({"name": f"n{node}"}), label))
        for start, end in [*((node, node + 1) for node in range(199)), (0, 3)]:
            conn.execute("INSERT INTO edge (start_id, end_id, kind_id) SELECT %s, %s, id FROM kind WHERE name = 'R'",
                         (start + 1, end + 1))
        move_node_ids_past_given_ones(conn)
    query = f"MATCH p={shortest_form}((s:S)-[:R*1..]->(t:T)) RETURN t.name, length(p) LIMIT 1000"
    budget = WorkBudget()
    found = sorted(many_sources.run_with_budget(empty_graph, query, budget))
    assert found == [("n2", 2), ("n3", 1), ("n4", 2), ("n5", 3), ("n6", 4)]
    assert in_memory, "the copy answered"
    assert budget.nodes <= 6, "the search stopped at the level of its last target"


@pytest.mark.parametrize("seed", many_sources.SEEDS)
def test_two_sides_past_max_roots_on_a_small_copy_search_in_memory_as_postgresql_would(
        empty_graph: Database, seed: int, in_memory: list[PairSearch], monkeypatch: pytest.MonkeyPatch) -> None:
    # Both sides hold more than MAX_ROOTS nodes; on a copy this small a search from each root costs less than
    # PostgreSQL's statements, so the copy answers, with the pairs and paths of PostgreSQL's search.
    graph, _, _ = many_sources.drawn(empty_graph, seed)
    row = many_sources.PATH_ROW
    queries = [f"MATCH p=shortestPath((u:A)-[:R*1..]->(t:A)) WHERE u.v >= 2 AND t.v <= 1 {row}",
               f"MATCH p=allShortestPaths((u:A)-[:R*1..]->(t:A)) WHERE u.v >= 2 AND t.v <= 1 {row}"]
    sides = [sum(1 for label, value in zip(graph.labels, graph.values, strict=True) if label == "A" and test(value))
             for test in (lambda v: v >= 2, lambda v: v <= 1)]
    assert min(sides) > walks.MAX_ROOTS, sides
    searched = walks.batches
    searches: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        searches.append(1)
        return searched(*args, **kwargs)

    monkeypatch.setattr(walks, "batches", counted)
    edge_id_reads: list[int] = []
    with_edge_ids = paths._with_edge_ids

    async def counted_reads(*args: Any) -> Any:
        edge_id_reads.append(1)
        return await with_edge_ids(*args)

    monkeypatch.setattr(paths, "_with_edge_ids", counted_reads)
    from_copy = rows(empty_graph, queries)
    assert len(searches) == len(queries), f"seed {seed}: the copy answered"
    # The edge ids are read for one path, then twice as many each time: a statement per doubling, not per root.
    assert len(edge_id_reads) <= sum(len(found).bit_length() + 2 for found in from_copy), f"seed {seed}"
    monkeypatch.setattr(walks, "SMALL_WALKS", 0)
    from_postgresql = rows(empty_graph, queries)
    assert len(searches) == len(queries), f"seed {seed}: PostgreSQL answered"
    (one, every), (one_pg, every_pg) = from_copy, from_postgresql
    assert sorted((u, t) for u, t, _ in one) == sorted((u, t) for u, t, _ in one_pg), f"seed {seed}"
    assert all(tuple(walk) in graph.shortest(int(u[1:]), int(t[1:])) for u, t, walk in one), f"seed {seed}"
    assert sorted(map(repr, every)) == sorted(map(repr, every_pg)), f"seed {seed}"
