"""A read answered as a graph (the Cypher route) may skip the repetitions of rows it cannot see
(translate/set_answer.py): reachable nodes instead of trails, one element of an UNWIND nobody reads, one match
of an OPTIONAL MATCH only collected for such an UNWIND. The graph answer stays the plain path's; a query that
counts, limits or returns scalars keeps every trail."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import psycopg
import pytest

from houndgraph.db import Database
from houndgraph.graph.budget import ResultTooLarge, WorkBudget
from houndgraph.graph.cypher.execute import Result, entity_ids, run_query
from houndgraph.graph.cypher.parser import parse
from houndgraph.graph.cypher.translate import set_answer
from houndgraph.graph.cypher.translate.translator import translate
from tests.graph.cypher.test_random_graphs import Graph, _load

KINDS = {"A": 1, "B": 2, "R": 3, "S": 4}
REACH, REACH_BOUNDED, FIRST_MATCH = "WITH RECURSIVE w(node) AS", "WITH RECURSIVE w(node, depth) AS", "LIMIT 1) AS o"
TRAILS = "e.id <> ALL(w.edges)"

# Users 0, 1 (A) in a ladder of groups (B) 2..9: each node of a layer is a member (R) of both of the next, and the
# top layer of the first group again, so that the trails from a user are many; groups and user 0 are admins (S)
# of computers 10, 11; user 12 has no edge, user 13 is only in the top group.
_LADDER = [(start, "R", end) for layer in range(3) for start in (2 + 2 * layer, 3 + 2 * layer)
           for end in (4 + 2 * layer, 5 + 2 * layer)]
LADDER = Graph(labels=[{"A"}, {"A"}, *[{"B"}] * 8, set(), set(), {"A"}, {"A"}], values=[None] * 14,
               edges=[(0, "R", 2), (0, "R", 3), (1, "R", 3), *_LADDER, (8, "R", 2), (9, "R", 2), (13, "R", 9),
                      (9, "S", 10), (5, "S", 11), (0, "S", 11)])

PREBUILT16 = ("MATCH (u:A) OPTIONAL MATCH (u)-[:S]->(c1) OPTIONAL MATCH (u)-[:R*1..]->(:B)-[:S]->(c2) "
              "WITH u, collect(c1) + collect(c2) AS l UNWIND l AS x RETURN u")

# (query, the rewrites its statement shows): each answers a graph the plain path answers too.
REWRITTEN = [
    ("MATCH (a:A)-[:R*1..]->(b:B) RETURN a, b", [REACH]),
    ("MATCH (a)-[:R*0..2]->(b)-[:S]->(c) RETURN c", [REACH_BOUNDED]),
    ("MATCH (g:B)<-[:R*]-(a:A) RETURN g", [REACH]),
    ("MATCH (a)-[:R*1..3]->(b) WITH a, collect(b) AS bs UNWIND bs AS b RETURN a, b", [REACH_BOUNDED]),
    ("MATCH (a:A) OPTIONAL MATCH (a)-[:R*1..]->(:B)-[:S]->(c) WITH a, collect(c) AS cs UNWIND cs AS x RETURN a",
     [REACH, FIRST_MATCH]),
    (PREBUILT16, [REACH, FIRST_MATCH]),
    ("MATCH (a:A)-[:R*1..]->(b:B) RETURN b ORDER BY b.name", [REACH]),
    ("MATCH (a:A)-[:R*1..]->(g:B) WITH g MATCH (g)-[:S]->(c) RETURN g, c", [REACH]),
    ("MATCH (a:A)-[*1..]->(b:B) RETURN a, b", [REACH]),
    ("MATCH (a:A)-[*0..3]->(b) RETURN b", [REACH_BOUNDED]),
]

# Queries whose answer sees how many trails there are, or whose trails the walk cannot drop: no rewrite.
COUNTED = [
    "MATCH (a:A)-[:R*1..]->(b) RETURN a, count(*)",
    "MATCH (a)-[:R*1..]->(b) WITH a, count(b) AS n WHERE n >= 5 RETURN a",
    "MATCH (a)-[:R*1..]->(b) WITH a, size(collect(b)) AS n WHERE n >= 5 RETURN a",
    "MATCH (a)-[:R*1..]->(b) WITH a, collect(b) AS bs WHERE size(bs) >= 5 RETURN a",
    "MATCH (a:A)-[:R*1..]->(b) RETURN b LIMIT 4",
    "MATCH (a:A)-[:R*1..]->(b) RETURN b.name",
    "MATCH (a:A)-[:R*1..]->(b) RETURN DISTINCT b.name, collect(a.name)",
    "MATCH (a:A)-[:R*1..]->(b) RETURN DISTINCT b.name LIMIT 3",
    "MATCH (a:A)-[:R*1..]->(b) WITH a, collect(b.name) AS names RETURN DISTINCT names",
    "MATCH (a:A)-[:R*1..]->(b) RETURN DISTINCT a.name, collect(DISTINCT b.name)",
    "MATCH (a:A)-[r:R*1..]->(b) RETURN r",
    "MATCH p = (a:A)-[:R*1..]->(b) RETURN p",
    "MATCH (a:A)-[:R*1..]-(b) RETURN b",
    "MATCH (a:A)-[:R*2..]->(b) RETURN b",
    "MATCH (a:A)-[:R*1..]->(b)-[:R]->(c) RETURN c",
]


def _run(database: Database, query: str, **options: Any) -> Result:
    async def go() -> Result:
        async with await psycopg.AsyncConnection.connect(database.conninfo) as conn:
            return await run_query(conn, query, **options)

    return asyncio.run(go())


def _graph_answer(database: Database, query: str, as_graph: bool) -> tuple[set[int], set[int]]:
    return entity_ids(_run(database, query, as_graph=as_graph))


def _sql(query: str) -> str:
    return translate(parse(query), KINDS, as_graph=True).sql


@pytest.fixture
def ladder(empty_graph: Database) -> Database:
    _load(empty_graph, LADDER)
    return empty_graph


@pytest.mark.parametrize(("query", "shown"), REWRITTEN)
def test_a_graph_answer_without_repetitions_is_the_plain_one(ladder: Database, query: str,
                                                              shown: list[str]) -> None:
    sql = _sql(query)
    assert all(marker in sql for marker in shown) and TRAILS not in sql, sql
    plain = translate(parse(query), KINDS).sql
    assert not any(marker in plain for marker in shown) and TRAILS in plain
    answer = _graph_answer(ladder, query, as_graph=True)
    assert answer == _graph_answer(ladder, query, as_graph=False)
    assert answer[0]
    # With rows once each the statement returns fewer rows than the trails make.
    assert len(_run(ladder, query, as_graph=True).rows) < len(_run(ladder, query).rows)


def test_the_users_with_admin_rights_are_the_ones_with_a_trail_to_a_computer(ladder: Database) -> None:
    nodes, edges = _graph_answer(ladder, PREBUILT16, as_graph=True)
    # Users 0 (admin itself, and through its groups) and 1 and 13 (through groups); 12 has no edge.
    assert nodes == {1, 2, 14} and not edges


def test_a_row_budget_the_trails_exceed_answers_the_graph(ladder: Database) -> None:
    trails = len(_run(ladder, PREBUILT16).rows)
    budget = trails // 2
    with pytest.raises(ResultTooLarge):
        _run(ladder, PREBUILT16, budget=WorkBudget(max_rows=budget))
    answer = _run(ladder, PREBUILT16, budget=WorkBudget(max_rows=budget), as_graph=True)
    assert sorted(answer.nodes) == [1, 2, 14]


@pytest.mark.parametrize("query", COUNTED)
def test_a_query_that_sees_its_trails_keeps_them(ladder: Database, query: str) -> None:
    assert TRAILS in _sql(query)
    assert not any(marker in _sql(query) for marker in (REACH, REACH_BOUNDED, FIRST_MATCH))
    graph = _run(ladder, query, as_graph=True)
    plain = _run(ladder, query)
    assert sorted(map(repr, graph.rows)) == sorted(map(repr, plain.rows))


@pytest.mark.parametrize("query", [
    "MATCH (a:A)-[:R*1..]->(g:B) RETURN DISTINCT g.name",
    "MATCH (a:A)-[:R*1..]->(g:B) RETURN DISTINCT a.name, g.name ORDER BY g.name DESC, a.name",
    "MATCH (a:A)-[:R*1..]->(g:B) RETURN count(DISTINCT g), max(g.name), a.name",
])
def test_rows_given_once_each_are_the_plain_rows(ladder: Database, query: str) -> None:
    # A final DISTINCT, or a grouping of set aggregates: the rows, scalars too, do not depend on the trails.
    assert REACH in _sql(query) and TRAILS not in _sql(query)
    graph = _run(ladder, query, as_graph=True)
    assert graph.rows and sorted(map(repr, graph.rows)) == sorted(map(repr, _run(ladder, query).rows))
    if "ORDER BY" in query:
        assert graph.rows == _run(ladder, query).rows


def test_trails_are_still_counted(ladder: Database) -> None:
    counted = _run(ladder, "MATCH (a:A)-[:R*1..]->(b) RETURN id(a), count(*)", as_graph=True)
    expected = {i + 1: len(LADDER.trails(i, "R", 1, 100)) for i in (0, 1, 13)}
    assert {int(a): int(n) for a, n in counted.rows} == expected
    assert expected[1] > len(set(LADDER.trails(0, "R", 1, 100)))  # more trails than groups reached
    # Users with twenty trails or more: a walk of reachable nodes (eight groups at most) would find none.
    many = _run(ladder, "MATCH (a:A)-[:R*1..]->(b) WITH a, count(b) AS n WHERE n >= 20 RETURN a", as_graph=True)
    assert sorted(many.nodes) == sorted(i for i, n in expected.items() if n >= 20) != []


@pytest.mark.parametrize("seed", range(20))
def test_random_graphs_answer_the_same_graph_both_ways(empty_graph: Database, seed: int) -> None:
    rng = random.Random(seed)
    graph = Graph.draw(rng)
    _load(empty_graph, graph)
    for query, _ in REWRITTEN:
        assert _graph_answer(empty_graph, query, True) == _graph_answer(empty_graph, query, False), (
            f"seed {seed}\n{graph}\n{query}")
    # And as the evaluator's trails say: a reaches b when some trail of one hop or more leads there.
    nodes = range(len(graph.labels))
    expected = {i + 1 for i in nodes if "A" in graph.labels[i] and any(
        "B" in graph.labels[e] for e in graph.trails(i, "R", 1, len(graph.edges)))}
    expected |= {e + 1 for i in nodes if "A" in graph.labels[i]
                 for e in graph.trails(i, "R", 1, len(graph.edges)) if "B" in graph.labels[e]}
    assert _graph_answer(empty_graph, REWRITTEN[0][0], True)[0] == expected, f"seed {seed}\n{graph}"


@pytest.mark.parametrize(("query", "reach", "first_element", "first_match"), [
    (PREBUILT16, 1, 1, 2),
    # The element is read after: every element stays, every match too (collect sees them all).
    ("MATCH (u) OPTIONAL MATCH (u)-[:R*1..]->(c) WITH u, collect(c) AS l UNWIND l AS x RETURN u, x", 1, 0, 0),
    # The collected list is returned: every match.
    ("MATCH (u) OPTIONAL MATCH (u)-[:R*1..]->(c) WITH u, collect(c) AS l RETURN u, l", 1, 0, 0),
    # A property of the match may be null on the one match taken: every match (the walk may still reach).
    ("MATCH (a:A) OPTIONAL MATCH (a)-[:R*1..]->(c) WITH a, collect(c.name) AS cs UNWIND cs AS x RETURN a", 1, 1, 0),
    # A star passes the element on.
    ("MATCH (u) UNWIND [1, 2] AS x WITH * RETURN u", 0, 0, 0),
    ("MATCH (u) UNWIND [1, 2] AS x RETURN u", 0, 1, 0),
    # The list's size is read: every match (the element unwound after is still read by nobody).
    ("MATCH (u) OPTIONAL MATCH (u)-[:S]->(c) WITH u, collect(c) AS l WHERE size(l) > 1 UNWIND l AS x RETURN u",
     0, 1, 0),
    ("MATCH (u) OPTIONAL MATCH (u)-[:S]->(c) WITH u, collect(c) AS l ORDER BY size(l) UNWIND l AS x RETURN u",
     0, 1, 0),
    # Before a LIMIT, an aggregate that counts, or a CALL, nothing.
    ("MATCH (u)-[:R*1..]->(g) WITH u LIMIT 10 RETURN u", 0, 0, 0),
    ("MATCH (u)-[:R*1..]->(g) WITH u, sum(g.x) AS s RETURN u", 0, 0, 0),
    ("MATCH (u)-[:R*1..]->(g) CALL { MATCH (x) RETURN x } RETURN u, x", 0, 0, 0),
    # After them, yes.
    ("MATCH (u) WITH u LIMIT 10 MATCH (u)-[:R*1..]->(g) RETURN g", 1, 0, 0),
    # Two walks of one type in a MATCH: relationship uniqueness needs their edges.
    ("MATCH (u)-[:R*1..]->(g)<-[:R*1..]-(v) RETURN v", 0, 0, 0),
    ("MATCH (u)-[:R*1..]->(g)<-[:S*1..]-(v) RETURN v", 2, 0, 0),
    ("MATCH (u)-[:R*1..]->(g) MATCH p = shortestPath((g)-[:S*1..]->(v)) RETURN v", 0, 0, 0),
    # An untyped walk alone in its MATCH, yes; beside another relationship it may take that one's edge.
    ("MATCH (u:A)-[*1..]->(g) RETURN g", 1, 0, 0),
    ("MATCH (u:A)-[*1..]->(g)-[:S]->(c) RETURN c", 0, 0, 0),
    ("MATCH (u:A)-[*1..]->(g), (g)-[:S]->(c) RETURN c", 0, 0, 0),
    ("MATCH (u:A)-[*1..]->(g) MATCH (g)-[:S]->(c) RETURN c", 1, 0, 0),
])
def test_the_rewrites_chosen(query: str, reach: int, first_element: int, first_match: int) -> None:
    answer = set_answer.plan(parse(query))
    assert (len(answer.reach), len(answer.first_element), len(answer.first_match)) == (
        reach, first_element, first_match)


def test_scalar_columns_keep_the_plain_statement(monkeypatch: pytest.MonkeyPatch) -> None:
    # The plan allows a walk of reachable nodes, but a name per row is a literal per row of the answer.
    query = "MATCH (a:A)-[:R*1..]->(b) RETURN a, b.name"
    assert set_answer.plan(parse(query))
    assert translate(parse(query), KINDS, as_graph=True).sql == translate(parse(query), KINDS).sql
    monkeypatch.setattr(set_answer, "plan", lambda query: set_answer.NONE)
    assert TRAILS in _sql(REWRITTEN[0][0])
