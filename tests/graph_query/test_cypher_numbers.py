"""Cypher's integers and floats stay apart in answers of POST /api/v2/graphs/cypher: a float with no fractional
part is still a float (`2.0`), as Neo4j answers; an integer past 64 bits and an integer divided by zero are
Neo4j's errors; a float divided by zero is NaN or an infinity, which the answer writes as Neo4j's HTTP API does
("NaN", "Infinity", "-Infinity": JSON has neither)."""

from __future__ import annotations

import httpx
import pytest

from tests.graph.cypher.conftest import graph  # noqa: F401 - the small hand-drawn graph
from tests.graph_query.test_cypher_ordering import column
from tests.graph_query.test_cypher_temporal import answers, refusal

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


@pytest.mark.usefixtures("graph")
@pytest.mark.parametrize(("query", "error"), [
    ("RETURN 9223372036854775807 + 1 AS x", "ArithmeticError"),
    ("RETURN -9223372036854775807 - 2 AS x", "ArithmeticError"),
    ("RETURN 4611686018427387904 * 2 AS x", "ArithmeticError"),
    ("RETURN 1 / 0 AS x", "ArithmeticError"),
    ("RETURN 7 % 0 AS x", "ArithmeticError"),
    ("RETURN 9223372036854775808 AS x", "IntegerOverflow"),
])
def test_integer_overflow_and_division_by_zero_are_errors(admin: httpx.Client, query: str, error: str) -> None:
    assert error in refusal(admin, query)


@pytest.mark.usefixtures("graph")
def test_integers_at_the_ends_of_64_bits_and_floats_stay_apart(admin: httpx.Client) -> None:
    assert answers(admin, "RETURN -9223372036854775808 AS smallest, -0x8000000000000000 AS hex, "
                          "9223372036854775806 + 1 AS largest, 9223372036854775807 + 1.0 AS float, 7 / 2 AS i, "
                          "7.0 / 2 AS f") == {
        "smallest": -9223372036854775808, "hex": -9223372036854775808, "largest": 9223372036854775807,
        "float": 9.223372036854776e18, "i": 3, "f": 3.5}
    # A row's value, not a constant of the statement: the error comes from the row that overflows.
    assert "ArithmeticError" in refusal(admin, "UNWIND [1, 9223372036854775807] AS x RETURN x + 1 AS y")
    assert answers(admin, "UNWIND [1, 2] AS x WITH x WHERE x < 2 RETURN x / 0.5 AS y") == {"y": 2.0}


@pytest.mark.usefixtures("graph")
def test_a_float_divided_by_zero_is_nan_or_an_infinity(admin: httpx.Client) -> None:
    assert answers(admin, "WITH 0.0 / 0.0 AS nan, 1.0 / 0 AS inf "
                          "RETURN nan, inf, -1 / 0.0 AS ninf, 7.5 % 0 AS m, inf + 1 AS a, inf - inf AS b, -inf AS c, "
                          "toString(nan) AS s, [1, nan] AS l") == {
        "nan": "NaN", "inf": "Infinity", "ninf": "-Infinity", "m": "NaN", "a": "Infinity", "b": "NaN",
        "c": "-Infinity", "s": "NaN", "l": [1, "NaN"]}
    # A row's value: 1 / d for each d.
    assert column(admin, "UNWIND [2.0, 0.0] AS d RETURN 1 / d AS x") == [0.5, "Infinity"]


@pytest.mark.usefixtures("graph")
def test_nan_equals_nothing_and_is_neither_less_nor_greater(admin: httpx.Client) -> None:
    assert answers(admin, "WITH 0.0 / 0.0 AS nan, 1.0 / 0 AS inf "
                          "RETURN nan = nan AS e, nan <> nan AS ne, inf = inf AS ie, nan IN [nan] AS i, "
                          "nan > 1 AS gt, nan >= 1 AS ge, nan < 1 AS lt, nan <= 1 AS le, nan > 'a' AS gs, "
                          "inf > 1e308 AS ig, -inf < -1e308 AS nl, [nan] < [1] AS lc") == {
        "e": False, "ne": True, "ie": True, "i": False, "gt": False, "ge": False, "lt": False, "le": False,
        "gs": None, "ig": True, "nl": True, "lc": False}


@pytest.mark.usefixtures("graph")
def test_nan_and_the_infinities_sort_among_the_numbers(admin: httpx.Client) -> None:
    values = "[1.5, 0.0 / 0.0, null, 1.0 / 0, -1.0 / 0, -5, 'x']"
    for direction, expected in (("", ["x", "-Infinity", -5, 1.5, "Infinity", "NaN", None]),
                                (" DESC", [None, "NaN", "Infinity", 1.5, -5, "-Infinity", "x"])):
        assert column(admin, f"UNWIND {values} AS t RETURN t ORDER BY t{direction}") == expected
    assert answers(admin, f"UNWIND {values} AS t WITH t WHERE t <> 'x' RETURN min(t) AS lo, max(t) AS hi") == {
        "lo": "-Infinity", "hi": "NaN"}



@pytest.mark.usefixtures("graph")
def test_lists_compare_element_by_element(admin: httpx.Client) -> None:
    assert answers(admin, "RETURN [1, 0] >= [1] AS longer, [1, null] >= [1] AS prefix, [1, 2] >= [3, null] AS first, "
                          "[1, 2] >= [1, null] AS unknown, [1, 'a'] < [1, 2] AS mixed, [[1, 2]] < [[1, 3]] AS nested, "
                          "([1, 2] < [3, 4]) IN [[3, 4], false] AS contained") == {
        "longer": True, "prefix": True, "first": False, "unknown": None, "mixed": None, "nested": True,
        "contained": False}


@pytest.mark.usefixtures("graph")
def test_functions_and_aggregates_of_nan_and_the_infinities(admin: httpx.Client) -> None:
    assert answers(admin, "WITH 0.0 / 0.0 AS nan, 1.0 / 0 AS inf "
                          "RETURN abs(-inf) AS a, ceil(inf) AS c, floor(-inf) AS f, abs(nan) AS n, sqrt(inf) AS s, "
                          "abs(-2) AS i, abs(-2.5) AS x") == {
        "a": "Infinity", "c": "Infinity", "f": "-Infinity", "n": "NaN", "s": "Infinity", "i": 2, "x": 2.5}
    assert answers(admin, "UNWIND [1, 2.5, 1.0 / 0] AS x RETURN sum(x) AS s, avg(x) AS a") == {
        "s": "Infinity", "a": "Infinity"}
    assert answers(admin, "UNWIND [1, 1.0 / 0, -1.0 / 0] AS x RETURN sum(x) AS s") == {"s": "NaN"}
    assert answers(admin, "UNWIND [1, 2] AS x RETURN sum(x) AS s, avg(x) AS a") == {"s": 3, "a": 1.5}
