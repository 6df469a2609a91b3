"""Parsing, validation and translation without a database."""

from __future__ import annotations

import pytest

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import (
    CypherError,
    CypherSyntaxError,
    MutationNotAllowed,
    QueryTooComplex,
    UnsupportedCypher,
)
from houndgraph.graph.cypher.execute import compile_query
from houndgraph.graph.cypher.parser import parse
from houndgraph.graph.cypher.validate import fitness, validate

KINDS = {"User": 1, "Group": 2, "MemberOf": 3, "AdminTo": 4}


def test_shortest_path_in_match_and_regex_parse() -> None:
    query = parse("MATCH p = allShortestPaths((u:User)-[:MemberOf|AdminTo*1..]->(g:Group)) "
                  "WHERE g.name =~ '(?i)domain admins.*' RETURN p")
    match = query.parts[0].clauses[0]
    assert isinstance(match, a.Match)
    part = match.patterns[0]
    assert part.shortest is a.Shortest.ALL and part.variable == "p"
    assert part.rels[0].types == ("MemberOf", "AdminTo") and part.rels[0].length == (1, None)
    assert isinstance(match.where, a.Binary) and match.where.op == "=~"


@pytest.mark.parametrize(("text", "length"), [("*", (1, None)), ("*1..", (1, None)), ("*..3", (1, 3)),
                                              ("*2..5", (2, 5)), ("*3", (3, 3)), ("*0..1", (0, 1))])
def test_range_literals(text: str, length: tuple[int | None, int | None]) -> None:
    match = parse(f"MATCH (a)-[{text}]->(b) RETURN a").parts[0].clauses[0]
    assert isinstance(match, a.Match)
    assert match.patterns[0].rels[0].length == length


def test_syntax_errors_name_line_and_column() -> None:
    with pytest.raises(CypherSyntaxError, match=r"^line 1:\d+ "):
        parse("MATCH (n RETURN n")


@pytest.mark.parametrize(("query", "message"), [
    ("CALL db.labels()", "procedure invocation is not supported"),
    ("MATCH (n) CALL apoc.path.expand(n) YIELD path RETURN path", "procedure invocation is not supported"),
    ("MATCH (n {name: $name}) RETURN n", "user-specified parameters are not supported"),
])
def test_refused_at_parse_time(query: str, message: str) -> None:
    with pytest.raises(CypherError) as raised:
        parse(query)
    assert raised.value.message == message


def test_updating_clauses_need_mutations_enabled() -> None:
    for query in ("CREATE (n:User) RETURN n", "MATCH (n) SET n.x = 1", "MATCH (n) DETACH DELETE n",
                  "MERGE (n:User {name: 'x'})", "MATCH (n) REMOVE n.x"):
        with pytest.raises(MutationNotAllowed, match="updating clauses are not supported"):
            validate(parse(query), allow_mutations=False)
    assert validate(parse("MATCH (n) SET n.x = 1"), allow_mutations=True) is True


def test_complexity_guard_follows_the_reference_heuristic() -> None:
    # One undirected, fully unbounded relationship: -1 - 3 - 3 = -7, at the bound.
    assert fitness(parse("MATCH (n)-[*]-(m) RETURN n")) == -7
    with pytest.raises(QueryTooComplex):
        validate(parse("MATCH (n)-[*]-(m) RETURN n"), allow_mutations=False)
    # A typical path query scores well above it.
    query = parse("MATCH p = shortestPath((n:User)-[:MemberOf|AdminTo*1..]->(m:Group)) "
                  "WHERE m.objectid ENDS WITH '-512' RETURN p")
    assert fitness(query) == 5 + 2 + 2 + 1 - 1 + 1 + 4 + 2
    validate(query, allow_mutations=False)
    validate(parse("MATCH (n)-[*]-(m) RETURN n"), allow_mutations=False, complexity_limit=False)


def test_user_values_never_reach_the_sql_text() -> None:
    hostile = "x' OR 1=1; DROP TABLE node; --"
    statement = compile_query(parse(f"MATCH (n:User) WHERE n.name = \"{hostile}\" OR n.name CONTAINS "
                                    f"\"{hostile}\" RETURN n"), KINDS)
    assert hostile not in statement.sql and "DROP" not in statement.sql
    assert hostile in statement.params.values()


def test_unknown_kinds_match_nothing() -> None:
    statement = compile_query(parse("MATCH (n:NoSuchKind)-[:NoSuchEdge]->(m) RETURN n"), KINDS)
    assert "FALSE" in statement.sql


@pytest.mark.parametrize(("query", "construct"), [
    ("MATCH p = (a)-[*]->(b) RETURN reduce(s = 0, x IN p | s + 1)", "reduce() over a path"),
    ("RETURN apoc.text.join(['a'], ',')", "the function apoc.text.join()"),
    ("MATCH (n) WHERE n.name =~ '(?m)x' RETURN n", "the regular expression flag (?m)"),
    ("MATCH p = shortestPath((a)-[*2..]->(b)) RETURN p", "shortestPath with a minimum length above 1"),
    ("MATCH (n) FOREACH (x IN [1] | SET n.a = x) RETURN n", "FOREACH"),
])
def test_unsupported_constructs_are_named(query: str, construct: str) -> None:
    with pytest.raises(UnsupportedCypher) as raised:
        compile_query(parse(query), KINDS)
    assert raised.value.message == f"{construct} is not supported"
