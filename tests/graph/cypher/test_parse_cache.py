"""`parse_query` (one parse per shape of query, string literals filled in) gives exactly what a parse of the
text gives, for every query of the corpus, with other literals, and for queries it must not template."""

from __future__ import annotations

import re

import pytest

from houndgraph.graph.cypher.errors import CypherError
from houndgraph.graph.cypher.parse_cache import parse_query
from houndgraph.graph.cypher.parser import _parse_tree, parse
from tests.graph.cypher.test_corpus import CORPUS as LAB
from tests.graph.cypher.test_library import CORPUS as PREBUILT
from tests.graph.cypher.test_library_community import COMMUNITY

QUERIES = sorted({query for query, *_ in PREBUILT} | {query for query, *_ in COMMUNITY} | {query for query, _ in LAB})
STRING = re.compile(r"'(?:[^'\\]|\\.)*'")


def fresh_parse(text: str):
    """A parse of the text itself, not the cache's."""
    return parse.__wrapped__(text)


def outcome(function, text: str):
    try:
        return function(text)
    except CypherError as error:
        return type(error), error.message


@pytest.mark.parametrize("query", QUERIES)
def test_each_corpus_query_parses_the_same(query: str) -> None:
    assert outcome(parse_query, query) == outcome(fresh_parse, query)
    other = STRING.sub(lambda found: "'other \\'value\\' " + str(len(found.group(0))) + "'", query)
    assert outcome(parse_query, other) == outcome(fresh_parse, other)


@pytest.mark.parametrize("query", [
    "MATCH (n:User) WHERE n.objectid = 'S-1-5-21-1-1101' RETURN n",
    "MATCH (n:User) WHERE n.objectid = 'S-1-5-21-1-1102' RETURN n",
    'MATCH (n:User) WHERE n.name = "A\\"B" RETURN n.name, \'x\'',
    "RETURN 'a' + 'b' AS ab, 'c'",
    "RETURN 'a', 'a', 'a'",
    "MATCH (n) WHERE n.name STARTS WITH 'AD' AND n.name =~ '(?i).*admin.*' RETURN n LIMIT 5",
    "MATCH (n {name: 'x', objectid: 'y'}) RETURN n",
    "MATCH (n) WHERE n.`odd 'name'` = 'v' // a comment with 'quotes'\nRETURN n",
    "RETURN '\\u00e9t\\u00e9', 'tab\\there'",
    "MATCH (n) WHERE n.name = 'a\\u0000b' RETURN n",
    "RETURN 'unterminated",
    "MATCH (n) WHERE n.name = '\ue000' RETURN n",
    "RETURN toUpper('abc'), size('abcd'), ['a', 'b'][1], {k: 'v'}.k",
    "RETURN date('2024-01-01')",
])
def test_literals_of_every_kind_parse_the_same(query: str) -> None:
    assert outcome(parse_query, query) == outcome(fresh_parse, query)


def test_a_new_literal_costs_no_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    import houndgraph.graph.cypher.parser as parser_module

    parse_query("MATCH (n:Group) WHERE n.objectid = 'first' RETURN n")
    calls: list[str] = []

    def counted(text: str, mode: int):
        calls.append(text)
        return _parse_tree(text, mode)

    monkeypatch.setattr(parser_module, "_parse_tree", counted)
    query = parse_query("MATCH (n:Group) WHERE n.objectid = 'second' RETURN n")
    assert calls == []
    monkeypatch.undo()
    assert query == fresh_parse("MATCH (n:Group) WHERE n.objectid = 'second' RETURN n")
