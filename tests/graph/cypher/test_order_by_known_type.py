"""ORDER BY a value whose type is known by its form (a relationship's type, a part of a string) sorts by the value
alone, without Cypher's keys of values of any types (hg_order_rank, hg_order_key), and in the same order."""

from __future__ import annotations

from typing import Any

import pytest

from houndgraph.graph.cypher.parser import parse
from houndgraph.graph.cypher.translate.translator import translate
from tests.graph.cypher.test_queries import rows

KINDS = {"Base": 1, "User": 2, "Group": 3, "MemberOf": 4, "AdminTo": 5, "HasSession": 6, "GenericAll": 7,
         "Contains": 8}
TYPES = ["AdminTo", "AdminTo", "Contains", "GenericAll", "HasSession", "HasSession", "MemberOf", "MemberOf",
         "MemberOf", "MemberOf", "MemberOf"]


@pytest.mark.parametrize(("query", "expected"), [
    ("MATCH ()-[r]->() RETURN type(r) ORDER BY type(r)", [(t,) for t in TYPES]),
    ("MATCH ()-[r]->() RETURN type(r) AS t ORDER BY t DESC LIMIT 3", [("MemberOf",)] * 3),
    ("MATCH (n:Group) RETURN left(n.name, 2) ORDER BY left(n.name, 2) DESC", [("IT",), ("HE",), ("DO",), ("DO",)]),
    ("MATCH (n:Group) RETURN n.name ORDER BY substring(n.name, 1, 1), right(n.name, 5), replace(n.name, 'D', 'Z')",
     [("HELPDESK@LAB.LOCAL",), ("DOMAIN ADMINS@LAB.LOCAL",), ("DOMAIN CONTROLLERS@LAB.LOCAL",), ("IT@LAB.LOCAL",)]),
])
def test_order_by_a_value_of_a_known_type(run: Any, query: str, expected: list[tuple[Any, ...]]) -> None:
    assert "hg_order_rank" not in translate(parse(query), KINDS).sql
    assert rows(run(query)) == expected


def test_order_by_element_id(run: Any) -> None:
    query = "MATCH (n) RETURN elementId(n) ORDER BY elementId(n) DESC"
    assert "hg_order_rank" not in translate(parse(query), KINDS).sql
    answer = rows(run(query))
    assert len(answer) == 10 and answer == sorted(answer, reverse=True)
