"""Cypher's integers and floats stay apart in answers of POST /api/v2/graphs/cypher: a float with no fractional
part is still a float (`2.0`), as Neo4j answers."""

from __future__ import annotations

import httpx
import pytest

from tests.graph.cypher.conftest import graph  # noqa: F401 - the small hand-drawn graph

URL = "/api/v2/graphs/cypher"


def value(client: httpx.Client, expression: str) -> object:
    response = client.post(URL, json={"query": f"RETURN {expression} AS v"})
    assert response.status_code == 200, response.text
    literals = response.json()["data"]["literals"]
    assert len(literals) == 1
    return literals[0]["value"]


@pytest.mark.usefixtures("graph")
@pytest.mark.parametrize(("expression", "expected"), [
    ("toFloat(1)", 1.0), ("toFloat('2')", 2.0), ("2 ^ 2", 4.0), ("4 ^ 0.5", 2.0), ("6 / 3.0", 2.0),
    ("1.5 * 2", 3.0), ("1e308", 1e308), ("2.0", 2.0), ("[1.0, 2][0]", 1.0), ("{f: 3.0}.f", 3.0),
    ("reduce(s = 0.0, x IN [1, 2] | s + x)", 3.0),
])
def test_whole_floats_stay_floats(admin: httpx.Client, expression: str, expected: float) -> None:
    got = value(admin, expression)
    assert type(got) is float and got == expected


@pytest.mark.usefixtures("graph")
@pytest.mark.parametrize(("expression", "expected"), [("7 / 2", 3), ("toInteger(2.9)", 2), ("2 * 3", 6)])
def test_integers_stay_integers(admin: httpx.Client, expression: str, expected: int) -> None:
    got = value(admin, expression)
    assert type(got) is int and got == expected


@pytest.mark.usefixtures("graph")
def test_the_average_of_integers_is_a_float(admin: httpx.Client) -> None:
    response = admin.post(URL, json={"query": "UNWIND [1, 3] AS x RETURN avg(x) AS v"})
    got = response.json()["data"]["literals"][0]["value"]
    assert type(got) is float and got == 2.0
