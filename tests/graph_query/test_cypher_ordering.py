"""How POST /api/v2/graphs/cypher orders and compares values as Neo4j does: ORDER BY, min() and max() sort lists
element by element and values of different types by Cypher's order of types (maps, lists, temporal values,
strings, booleans, numbers, then null); `=` between lists or maps holding nulls is null when only a null could
make them differ, however deep the null."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.graph.cypher.conftest import graph  # noqa: F401 - the small hand-drawn graph
from tests.graph_query.test_cypher_temporal import answers

URL = "/api/v2/graphs/cypher"
LISTS = "[[], ['a'], ['a', 1], [1], [1, 'a'], [1, null], [null, 1], [null, 2], [2, -2, 100], [2, 2]]"
IN_CYPHER_ORDER = [[], ["a"], ["a", 1], [1], [1, "a"], [1, None], [2, -2, 100], [2, 2], [None, 1], [None, 2]]


def column(client: httpx.Client, query: str) -> list[Any]:
    response = client.post(URL, json={"query": query})
    assert response.status_code == 200, response.text
    return [literal.get("value") for literal in response.json()["data"]["literals"]]


@pytest.mark.usefixtures("graph")
@pytest.mark.parametrize("clause", ["RETURN x ORDER BY x{dir}", "WITH x ORDER BY x{dir} RETURN x",
                                    "RETURN DISTINCT x ORDER BY x{dir}", "RETURN x ORDER BY x[0..10]{dir}",
                                    "RETURN x, count(*) AS c ORDER BY x{dir}"])
def test_lists_sort_element_by_element(admin: httpx.Client, clause: str) -> None:
    # jsonb sorts arrays by their length first: [1] came before ['a', 1], [2, 2] before [2, -2, 100].
    query = f"UNWIND {LISTS} AS x {clause}"
    assert column(admin, query.format(dir=""))[::1 + ("count" in clause)] == IN_CYPHER_ORDER
    assert column(admin, query.format(dir=" DESC"))[::1 + ("count" in clause)] == IN_CYPHER_ORDER[::-1]


@pytest.mark.usefixtures("graph")
def test_values_of_different_types_sort_in_the_order_of_their_types(admin: httpx.Client) -> None:
    mixed = "[1.5, 'text', null, false, {a: 'map'}, ['list'], 2, date('2024-01-02'), true, 'a', localtime('12:00')]"
    expected = [{"a": "map"}, ["list"], "2024-01-02", "12:00", "a", "text", False, True, 1.5, 2, None]
    assert column(admin, f"UNWIND {mixed} AS x RETURN x ORDER BY x") == expected
    assert column(admin, f"UNWIND {mixed} AS x RETURN x ORDER BY x DESC") == expected[::-1]


@pytest.mark.usefixtures("graph")
def test_a_sort_by_an_expression_of_the_rows_keeps_its_rows(admin: httpx.Client) -> None:
    assert column(admin, "UNWIND [3, 1, 2] AS x WITH x ORDER BY [x * -1, 'a'] RETURN x") == [3, 2, 1]
    assert column(admin, "UNWIND [[2], [1, 5], [2], [1, 5], [1, 5]] AS x "
                         "RETURN x, count(*) AS c ORDER BY [count(*)] DESC") == [[1, 5], 3, [2], 2]


@pytest.mark.usefixtures("graph")
def test_min_and_max_of_lists_and_of_mixed_values(admin: httpx.Client) -> None:
    assert answers(admin, "UNWIND [[1], [2], [2, 1]] AS x RETURN min(x) AS lo, max(x) AS hi") == {
        "lo": [1], "hi": [2, 1]}
    assert answers(admin, "UNWIND [1, 'a', null, [1, 2], 0.2, 'b', false] AS x RETURN min(x) AS lo, max(x) AS hi") == {
        "lo": [1, 2], "hi": 1}
    assert answers(admin, "UNWIND ['a', 'b', 'B', null, 'abc'] AS x RETURN min(x) AS lo, max(x) AS hi") == {
        "lo": "B", "hi": "b"}


@pytest.mark.usefixtures("graph")
def test_equality_of_lists_and_maps_with_nested_nulls(admin: httpx.Client) -> None:
    assert answers(admin, "RETURN [[1], [2]] = [[1], [null]] AS nested, [[1, 2], ['a', 'b']] = [[1, 2], [null, 'b']] "
                          "AS deeper, [[1], [2, 3]] = [[1], [null]] AS sizes, [[1, 2], [1, 3]] = [[1, 2], [null, 'x']] "
                          "AS differs, {k: [1, null]} = {k: [1, 2]} AS map, [{k: 1}] <> [{k: null}] AS unequal, "
                          "[[1, [2]]] = [[1, [2]]] AS same") == {
        "nested": None, "deeper": None, "sizes": False, "differs": False, "map": None, "unequal": None,
        "same": True}
