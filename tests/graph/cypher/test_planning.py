"""Where a variable-length walk starts: from the end its filters make selective, wherever they are written,
with the same answers whichever end it starts from."""

from __future__ import annotations

import re
from typing import Any

import pytest

from houndgraph.graph.cypher.parser import parse
from houndgraph.graph.cypher.translate.translator import translate
from tests.graph.cypher.test_queries import DA, IT, A, rows

KINDS = {"Base": 1, "User": 2, "Group": 3, "MemberOf": 4}
_SEED = re.compile(r"WITH RECURSIVE w\(node, edges, segment, depth\) AS \(SELECT (n\d+)\.id")


def _walk_seed_filters(query: str, key: str) -> bool:
    """Whether the recursive walk of `query` starts from the node its `key` property is filtered on."""
    sql = translate(parse(query), KINDS).sql
    seed = _SEED.search(sql)
    assert seed is not None, sql
    return f"({seed.group(1)}.properties->>'{key}')" in sql


@pytest.mark.parametrize(("query", "key"), [
    ("MATCH p=(:Base)-[:MemberOf*1..]->(g:Group) WHERE g.objectid ENDS WITH '-518' RETURN p", "objectid"),
    ("MATCH (u:User)-[:MemberOf*1..]->(g:Group) WHERE g.name IN ['A', 'B'] AND u.enabled RETURN u", "name"),
    ("MATCH (u:User)-[:MemberOf*1..]->(g:Group) WHERE u.name = 'ALICE@LAB.LOCAL' RETURN g", "name"),
    ("MATCH (g:Group)<-[:MemberOf*1..]-(u) WHERE 'X' = u.objectid RETURN g", "objectid"),
])
def test_a_walk_starts_from_the_end_the_where_clause_filters(query: str, key: str) -> None:
    assert _walk_seed_filters(query, key)


def test_a_comparison_between_two_nodes_filters_neither_end() -> None:
    # Nothing is known of either end: the walk starts on the left, as written.
    sql = translate(parse("MATCH (u:User)-[:MemberOf*1..]->(g:Group) WHERE g.name = u.name RETURN g"), KINDS).sql
    seed = _SEED.search(sql)
    assert seed is not None and seed.group(1) == "n1"


def test_walking_from_the_filtered_end_finds_every_trail(run: Any) -> None:
    from_right = run("MATCH p=(:Base)-[:MemberOf*1..]->(g:Group) WHERE g.objectid ENDS WITH '-512' "
                     "RETURN [n IN nodes(p) | n.name]")
    inline = run("MATCH p=(:Base)-[:MemberOf*1..]->(g:Group {objectid: 'S-1-5-21-1-512'}) "
                 "RETURN [n IN nodes(p) | n.name]")
    expected = [([A, IT, DA],), ([DA, IT, DA],), ([IT, DA],)]
    assert sorted(rows(from_right)) == sorted(rows(inline)) == expected
