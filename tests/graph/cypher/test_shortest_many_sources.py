"""Shortest paths from many sources to few targets (all users -> Domain Admins, every principal -> Tier Zero):
one search from the target side, stopped early under a LIMIT. Each answer is checked against a search
per (source, target) pair: the plain library search and a breadth-first evaluator written here."""

from __future__ import annotations

import asyncio
import random
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

from houndgraph.db import Database
from houndgraph.graph import level_search, paths
from houndgraph.graph.budget import ResultTooLarge, WorkBudget, WorkExhausted
from houndgraph.graph.cypher import ast, path_bound, statement
from houndgraph.graph.cypher.execute import run_query
from houndgraph.graph.cypher.parser import parse
from houndgraph.graph.cypher.translate import shortest
from houndgraph.graph.paths import Path, shortest_paths
from tests.conftest import move_node_ids_past_given_ones
from tests.graph.cypher.answers import rows

SEEDS = range(6)
SIZE = 40


@dataclass
class Graph:
    """Nodes n0..n39: most are A (the many sources), a few B (the targets), each with a number v;
    random R edges."""

    labels: list[str]
    values: list[int]
    edges: set[tuple[int, int]]

    @staticmethod
    def draw(rng: random.Random) -> Graph:
        labels = ["B" if rng.random() < 0.1 else "A" for _ in range(SIZE)]
        labels[0] = "B"
        edges = {(rng.randrange(SIZE), rng.randrange(SIZE)) for _ in range(rng.randint(SIZE, 3 * SIZE))}
        return Graph(labels, [rng.randint(0, 3) for _ in range(SIZE)], {(s, e) for s, e in edges if s != e})

    def shortest(self, start: int, end: int) -> set[tuple[str, ...]]:
        """Every shortest path from start to end, as node names."""
        depth, queue = {start: 0}, deque([start])
        parents: dict[int, list[int]] = {start: []}
        while queue:
            node = queue.popleft()
            for s, e in sorted(self.edges):
                if s != node:
                    continue
                if e not in depth:
                    depth[e], parents[e] = depth[node] + 1, [node]
                    queue.append(e)
                elif depth[e] == depth[node] + 1:
                    parents[e].append(node)
        if end not in depth or end == start:
            return set()

        def walks(node: int) -> list[tuple[str, ...]]:
            if node == start:
                return [(f"n{start}",)]
            return [(*walk, f"n{node}") for parent in parents[node] for walk in walks(parent)]

        return set(walks(end))


def _load(database: Database, graph: Graph) -> None:
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("TRUNCATE edge, node RESTART IDENTITY CASCADE")
        conn.execute("INSERT INTO kind (name) VALUES ('A'), ('B'), ('R') ON CONFLICT (name) DO NOTHING")
        for node, (label, value) in enumerate(zip(graph.labels, graph.values, strict=True)):
            conn.execute("INSERT INTO node (id, kind_ids, properties) SELECT %s, ARRAY[id], %s FROM kind "
                         "WHERE name = %s", (node + 1, Jsonb({"name": f"n{node}", "v": value}), label))
        for start, end in sorted(graph.edges):
            conn.execute("INSERT INTO edge (start_id, end_id, kind_id) SELECT %s, %s, id FROM kind WHERE name = 'R'",
                         (start + 1, end + 1))
        move_node_ids_past_given_ones(conn)


def _expected(graph: Graph, sources: list[int], targets: list[int]) -> dict[tuple[str, str], set[tuple[str, ...]]]:
    """The shortest paths of each connected (source, target) pair, searched pair by pair."""
    found = {(f"n{s}", f"n{t}"): graph.shortest(s, t) for s in sources for t in targets}
    return {pair: paths for pair, paths in found.items() if paths}


def _drawn(database: Database, seed: int) -> tuple[Graph, list[int], list[int]]:
    graph = Graph.draw(random.Random(seed))
    _load(database, graph)
    sources = [n for n in range(SIZE) if graph.labels[n] == "A" and graph.values[n] >= 1]
    return graph, sources, [n for n in range(SIZE) if graph.labels[n] == "B"]


PATH_ROW = "RETURN u.name, t.name, [n IN nodes(p) | n.name]"


@pytest.mark.parametrize("seed", SEEDS)
def test_many_sources_without_limit_find_every_pair_a_shortest_path(empty_graph: Database, seed: int) -> None:
    graph, sources, targets = _drawn(empty_graph, seed)
    expected = _expected(graph, sources, targets)
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
    graph, sources, targets = _drawn(empty_graph, seed)
    expected = _expected(graph, sources, targets)
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
    graph, sources, targets = _drawn(empty_graph, seed)
    expected = _expected(graph, sources, targets)
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
    _, sources, targets = _drawn(empty_graph, seed)
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



class _Reader:
    """One event loop and connection for the module's thousands of queries (a backend per query cost more than them)."""

    def __init__(self) -> None:
        self.runner = asyncio.Runner()
        self.connections: dict[str, psycopg.AsyncConnection[Any]] = {}

    def run(self, database: Database, query: str, budget: WorkBudget, plan_off: str | None) -> list[tuple[Any, ...]]:
        async def go() -> list[tuple[Any, ...]]:
            conn = self.connections.get(database.conninfo)
            if conn is None or conn.closed:
                conn = self.connections[database.conninfo] = await psycopg.AsyncConnection.connect(database.conninfo)
            async with conn.transaction(force_rollback=True):
                if plan_off is not None:
                    await conn.execute(f"SET LOCAL {plan_off} = off")
                return [tuple(row) for row in (await run_query(conn, query, load_entities=False, budget=budget)).rows]
        return self.runner.run(go())


_readers: list[_Reader] = []


@pytest.fixture(scope="module", autouse=True)
def _module_reader() -> Iterator[None]:
    _readers.append(reader := _Reader())
    yield
    _readers.remove(reader)
    for conn in reader.connections.values():
        reader.runner.run(conn.close())
    reader.runner.close()


def _run_with_budget(database: Database, query: str, budget: WorkBudget, plan_off: str | None = None
                     ) -> list[tuple[Any, ...]]:
    return _readers[-1].run(database, query, budget, plan_off)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("form", ["(u:A)-[:R*1..]->(t:B)", "(u:A)-[:R*1..]-(t:B)", "(u:A {name: 'n1'})-[:R*1..]-(t:B)"])
def test_the_path_kept_among_equally_short_ones_does_not_hang_on_the_plan(
        empty_graph: Database, seed: int, form: str) -> None:
    # shortestPath keeps one of a pair's equally short paths: the same one whichever plan PostgreSQL picks for a
    # level's edges (a plan follows the table's statistics, which autovacuum refreshes when it likes).
    _drawn(empty_graph, seed)
    query = f"MATCH p=shortestPath({form}) WHERE u.v >= 0 {PATH_ROW}"
    plain = sorted(map(repr, _run_with_budget(empty_graph, query, WorkBudget())))
    for setting in ("enable_hashagg", "enable_hashjoin", "enable_mergejoin", "enable_seqscan", "enable_indexscan"):
        assert sorted(map(repr, _run_with_budget(empty_graph, query, WorkBudget(), setting))) == plain, \
            f"seed {seed}, {setting} off"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shortest_form", ["shortestPath", "allShortestPaths"])
def test_without_limit_a_search_past_the_row_budget_is_refused_before_it_ends(
        empty_graph: Database, seed: int, shortest_form: str, monkeypatch: pytest.MonkeyPatch) -> None:
    graph, sources, targets = _drawn(empty_graph, seed)
    query = f"MATCH p={shortest_form}((u:A)-[:R*1..]->(t:B)) WHERE u.v >= 1 {PATH_ROW}"
    assert shortest.rows_past(parse(query), 3) == (0, 4)
    assert shortest.rows_past(parse(query + " LIMIT 10"), 3) is None
    assert shortest.rows_past(parse(f"MATCH p={shortest_form}((u:A)-[:R*1..]->(t:B)) RETURN count(p)"), 3) is None
    whole = WorkBudget()
    answer = _run_with_budget(empty_graph, query, whole)
    # Within the budget: the rows of the plain way (every path searched first, then the statement).
    with monkeypatch.context() as plain:
        plain.setattr(shortest, "rows_past", lambda *args: None)
        expected = _run_with_budget(empty_graph, query, WorkBudget())
    assert sorted(map(repr, answer)) == sorted(map(repr, expected)), f"seed {seed}"
    if len(answer) <= 3:
        return
    # Past it: refused once the paths found give more rows than the budget, before the search has found them all.
    small = WorkBudget(max_rows=3)
    with pytest.raises(ResultTooLarge):
        _run_with_budget(empty_graph, query, small)
    assert small.path_members < whole.path_members, f"seed {seed}: {len(answer)} rows"


def _outcome(database: Database, query: str, budget: WorkBudget) -> tuple[str, list[str]]:
    """The query's sorted rows, or the name of the error it was refused with."""
    try:
        return "rows", sorted(map(repr, _run_with_budget(database, query, budget)))
    except (WorkExhausted, ResultTooLarge) as error:
        return type(error).__name__, []


def _members_bound(graph: Graph, sources: list[int], targets: list[int]) -> int:
    """2d + 1 summed over the connected (source, target) pairs, d their distance: the members of one
    shortest path per pair."""
    return sum(2 * len(next(iter(found))) - 1 for found in _expected(graph, sources, targets).values())


SHORTEST_FORMS = ["MATCH p=shortestPath((u:A)-[:R*1..]->(t:B)) WHERE u.v >= 1",
                  "MATCH p=allShortestPaths((u:A)-[:R*1..]->(t:B)) WHERE u.v >= 1",
                  "MATCH p=shortestPath((u:A)<-[:R*1..]-(t:B)) WHERE u.v >= 1",
                  "MATCH p=shortestPath((u:A)-[:R*1..]-(t:B)) WHERE u.v >= 1",
                  "MATCH p=shortestPath((u:A)-[:R*1..3]->(t:B)) WHERE u.v >= 1"]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("form", SHORTEST_FORMS)
def test_the_path_budget_bound_refuses_only_what_the_search_refuses(
        empty_graph: Database, seed: int, form: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The bound (graph/cypher/path_bound.py) reads each root's pairs and distances before the search and refuses
    # a search whose paths must pass the path budget. Under any budget, a query must answer as it does without
    # the bound: the same rows, or the same refusal (the row budget's when the statement sees its rows first).
    monkeypatch.setattr(path_bound, "PAIR_MEMBERS_GUESS", 10**6)  # always take the bound's traversal here
    # Odd seeds renumber the node ids for the bound's in-memory traversal (what sparse ids make it do).
    monkeypatch.setattr(path_bound, "SPARSE_IDS", 0 if seed % 2 else path_bound.SPARSE_IDS)
    _drawn(empty_graph, seed)
    queries = [f"{form} {PATH_ROW}", f"{form} RETURN count(p)", f"{form} {PATH_ROW} ORDER BY u.name"]
    whole = WorkBudget()
    _run_with_budget(empty_graph, queries[0], whole)
    members = whole.path_members
    budgets = [(members + extra, rows) for extra in (-members, -members // 2, -1, 0, 1) for rows in (1, 4, 10**5)]
    for query in queries:
        with monkeypatch.context() as plain:
            plain.setattr(statement, "refuse_past_path_budget", _never_refuse)
            expected = [_outcome(empty_graph, query, WorkBudget(max_path_members=m, max_rows=r)) for m, r in budgets]
        found = [_outcome(empty_graph, query, WorkBudget(max_path_members=m, max_rows=r)) for m, r in budgets]
        assert found == expected, f"seed {seed}: {query}"


async def _never_refuse(*args: Any, **kwargs: Any) -> None:
    return None


@pytest.mark.parametrize("seed", SEEDS)
def test_a_search_past_the_path_budget_is_refused_before_it_starts(
        empty_graph: Database, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(path_bound, "PAIR_MEMBERS_GUESS", 10**6)
    graph, sources, targets = _drawn(empty_graph, seed)
    bound = _members_bound(graph, sources, targets)
    query = f"MATCH p=shortestPath((u:A)-[:R*1..]->(t:B)) WHERE u.v >= 1 {PATH_ROW}"
    if bound == 0:
        return
    # Below the bound: refused as the search would be (its paths hold at least `bound` members), and before it
    # ran: it visited no node.
    below = WorkBudget(max_path_members=bound - 1)
    with pytest.raises(WorkExhausted):
        _run_with_budget(empty_graph, query, below)
    assert below.nodes == 0, f"seed {seed}"
    # At the bound the search runs, and answers as without the bound: every pair's path, or the path budget's
    # refusal when it counted more members (where two searches meet, the middle node twice).
    at = WorkBudget(max_path_members=bound)
    with monkeypatch.context() as plain:
        plain.setattr(statement, "refuse_past_path_budget", _never_refuse)
        expected = _outcome(empty_graph, query, WorkBudget(max_path_members=bound))
    assert _outcome(empty_graph, query, at) == expected, f"seed {seed}"
    assert at.nodes > 0, f"seed {seed}"


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
    _drawn(empty_graph, seed)
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
            expected = [_outcome(empty_graph, query, budget) for budget in budgets]
        found = [_outcome(empty_graph, query, budget) for budget in budgets]
        assert found == expected, f"seed {seed}: {query}"


def test_the_bound_reaches_nodes_numbered_past_every_root_goal_and_edge_start(empty_graph: Database) -> None:
    # a -> b and a -> c, c numbered last and neither root nor goal: the in-memory traversal must hold it.
    with empty_graph.connect_raw(autocommit=True) as conn:
        conn.execute("TRUNCATE edge, node RESTART IDENTITY CASCADE")
        conn.execute("INSERT INTO kind (name) VALUES ('R') ON CONFLICT (name) DO NOTHING")
        a, b, d, c = (row[0] for row in conn.execute(
            "INSERT INTO node (kind_ids, properties) SELECT '{}', '{}' FROM generate_series(1, 4) RETURNING id"))
        (kind,) = (row[0] for row in conn.execute("SELECT id FROM kind WHERE name = 'R'"))
        for start, end in ((a, b), (a, c)):
            conn.execute("INSERT INTO edge (start_id, end_id, kind_id) VALUES (%s, %s, %s)", (start, end, kind))

    async def bound(max_members: int) -> None:
        async with await psycopg.AsyncConnection.connect(empty_graph.conninfo) as conn:
            await path_bound.refuse_past_path_budget(
                conn, [a], [b, d], kind_ids=[kind], direction=paths.Direction.OUT, min_depth=1, max_depth=None,
                all_paths=False, budget=WorkBudget(max_path_members=max_members), rows_at=None)

    asyncio.run(bound(3))  # a -> b: three members, within the budget
    with pytest.raises(WorkExhausted):
        asyncio.run(bound(2))
