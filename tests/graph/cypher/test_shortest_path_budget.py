"""The budgets of shortest path searches from many sources (`graph.budget`): a search past the row budget is
refused before it ends, and the path budget's bound (`graph/cypher/path_bound.py`) refuses before the search starts
exactly what the search would refuse. On the drawn graphs of `many_sources`."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from houndgraph.db import Database
from houndgraph.graph import paths
from houndgraph.graph.budget import ResultTooLarge, WorkBudget, WorkExhausted
from houndgraph.graph.cypher import path_bound, statement
from houndgraph.graph.cypher.parser import parse
from houndgraph.graph.cypher.translate import shortest
from tests.graph.cypher.many_sources import (
    PATH_ROW,
    SEEDS,
    drawn,
    members_bound,
    module_reader,
    outcome,
    run_with_budget,
)


@pytest.fixture(scope="module", autouse=True)
def _module_reader() -> Iterator[None]:
    with module_reader():
        yield


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shortest_form", ["shortestPath", "allShortestPaths"])
def test_without_limit_a_search_past_the_row_budget_is_refused_before_it_ends(
        empty_graph: Database, seed: int, shortest_form: str, monkeypatch: pytest.MonkeyPatch) -> None:
    graph, sources, targets = drawn(empty_graph, seed)
    query = f"MATCH p={shortest_form}((u:A)-[:R*1..]->(t:B)) WHERE u.v >= 1 {PATH_ROW}"
    assert shortest.rows_past(parse(query), 3) == (0, 4)
    assert shortest.rows_past(parse(query + " LIMIT 10"), 3) is None
    assert shortest.rows_past(parse(f"MATCH p={shortest_form}((u:A)-[:R*1..]->(t:B)) RETURN count(p)"), 3) is None
    whole = WorkBudget()
    answer = run_with_budget(empty_graph, query, whole)
    # Within the budget: the rows of the plain way (every path searched first, then the statement).
    with monkeypatch.context() as plain:
        plain.setattr(shortest, "rows_past", lambda *args: None)
        expected = run_with_budget(empty_graph, query, WorkBudget())
    assert sorted(map(repr, answer)) == sorted(map(repr, expected)), f"seed {seed}"
    if len(answer) <= 3:
        return
    # Past it: refused once the paths found give more rows than the budget, before the search has found them all.
    small = WorkBudget(max_rows=3)
    with pytest.raises(ResultTooLarge):
        run_with_budget(empty_graph, query, small)
    assert small.path_members < whole.path_members, f"seed {seed}: {len(answer)} rows"


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
    drawn(empty_graph, seed)
    queries = [f"{form} {PATH_ROW}", f"{form} RETURN count(p)", f"{form} {PATH_ROW} ORDER BY u.name"]
    whole = WorkBudget()
    run_with_budget(empty_graph, queries[0], whole)
    members = whole.path_members
    budgets = [(members + extra, rows) for extra in (-members, -members // 2, -1, 0, 1) for rows in (1, 4, 10**5)]
    for query in queries:
        with monkeypatch.context() as plain:
            plain.setattr(statement, "refuse_past_path_budget", _never_refuse)
            expected = [outcome(empty_graph, query, WorkBudget(max_path_members=m, max_rows=r)) for m, r in budgets]
        found = [outcome(empty_graph, query, WorkBudget(max_path_members=m, max_rows=r)) for m, r in budgets]
        assert found == expected, f"seed {seed}: {query}"


async def _never_refuse(*args: Any, **kwargs: Any) -> None:
    return None


@pytest.mark.parametrize("seed", SEEDS)
def test_a_search_past_the_path_budget_is_refused_before_it_starts(
        empty_graph: Database, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(path_bound, "PAIR_MEMBERS_GUESS", 10**6)
    graph, sources, targets = drawn(empty_graph, seed)
    bound = members_bound(graph, sources, targets)
    query = f"MATCH p=shortestPath((u:A)-[:R*1..]->(t:B)) WHERE u.v >= 1 {PATH_ROW}"
    if bound == 0:
        return
    # Below the bound: refused as the search would be (its paths hold at least `bound` members), and before it
    # ran: it visited no node.
    below = WorkBudget(max_path_members=bound - 1)
    with pytest.raises(WorkExhausted):
        run_with_budget(empty_graph, query, below)
    assert below.nodes == 0, f"seed {seed}"
    # At the bound the search runs, and answers as without the bound: every pair's path, or the path budget's
    # refusal when it counted more members (where two searches meet, the middle node twice).
    at = WorkBudget(max_path_members=bound)
    with monkeypatch.context() as plain:
        plain.setattr(statement, "refuse_past_path_budget", _never_refuse)
        expected = outcome(empty_graph, query, WorkBudget(max_path_members=bound))
    assert outcome(empty_graph, query, at) == expected, f"seed {seed}"
    assert at.nodes > 0, f"seed {seed}"


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
