"""Queries Neo4j refuses are refused by POST /api/v2/graphs/cypher too (400, naming Neo4j's error), never answered:
a pattern written as a value, and a list indexed by something that is not an integer; and a comparison Neo4j
answers that was refused, a node or relationship compared with null."""

from __future__ import annotations

import httpx
import pytest

from tests.graph.cypher.conftest import graph  # noqa: F401 - the small hand-drawn graph
from tests.graph_query.test_cypher_temporal import answers, refusal


@pytest.mark.usefixtures("graph")
@pytest.mark.parametrize("query", [
    "MATCH (n) RETURN (n)-[]->()",
    "MATCH (n) WITH (n)-[]->() AS x RETURN x",
    "MATCH (a), (b) RETURN size((a)-[:MemberOf]->(b))",
    "MATCH (n) RETURN head(nodes(head((n)-[:MemberOf]->()))).name",
])
def test_a_pattern_as_a_value_is_a_syntax_error(admin: httpx.Client, query: str) -> None:
    assert "UnexpectedSyntax" in refusal(admin, query)


@pytest.mark.usefixtures("graph")
def test_a_pattern_as_a_predicate_still_answers(admin: httpx.Client) -> None:
    assert answers(admin, "MATCH (n:User) WHERE (n)-[:MemberOf]->() AND NOT (n)<-[:HasSession]-() "
                          "OR n.name = 'BOB@LAB.LOCAL' "
                          "RETURN n.name AS name, CASE WHEN (n)<-[:GenericAll]-() THEN 1 ELSE 0 END AS owned, "
                          "[m IN [n] WHERE (m)-->() | m.name] AS listed") == {
        "name": "BOB@LAB.LOCAL", "owned": 1, "listed": ["BOB@LAB.LOCAL"]}


@pytest.mark.usefixtures("graph")
@pytest.mark.parametrize("index", ["{x: 3}", "i.f", "i.s", "i.b"])
def test_a_list_index_that_is_not_an_integer_is_a_type_error(admin: httpx.Client, index: str) -> None:
    assert "TypeError" in refusal(admin, f"WITH [1, 2, 3] AS list, {{f: 1.5, s: '1', b: true}} AS i "
                                         f"RETURN list[{index}] AS x")
    assert answers(admin, "WITH [1, 2, 3] AS list, {i: 1, n: null} AS m RETURN list[m.i] AS x, list[m.n] AS y, "
                          "m['i'] AS z") == {"x": 2, "y": None, "z": 1}


@pytest.mark.usefixtures("graph")
def test_a_node_or_relationship_compared_with_null_is_null(admin: httpx.Client) -> None:
    assert answers(admin, "MATCH (n:User {name: 'ALICE@LAB.LOCAL'}) OPTIONAL MATCH (n)-[r:AdminTo]->() "
                          "RETURN size([x IN collect(r) WHERE x <> null]) AS cn, n = null AS eq") == {
        "cn": 0, "eq": None}
