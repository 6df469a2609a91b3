"""The runner's comparison itself: a node, relationship or path inside a literal (graph_query/literals.py's record)
matches the TCK's written value only when its labels or type, its properties and its place in the list match; a
map with other keys stays a map."""

from __future__ import annotations

from typing import Any

from tests.tck.runner import Answer, _rows
from tests.tck.scenarios import Scenario


def node(kinds: list[str], **properties: Any) -> dict[str, Any]:
    return {"id": 1, "kinds": kinds, "properties": properties}


def edge(kind: str, **properties: Any) -> dict[str, Any]:
    return {"id": 2, "start_id": 1, "end_id": 3, "kind": kind, "properties": properties}


def answer(*values: Any) -> Answer:
    return Answer(200, {"data": {"nodes": {}, "edges": [], "literals": [{"key": "l", "value": v} for v in values]}})


def failure(expected: list[str], *got: Any, ordered: bool = False) -> str | None:
    scenario = Scenario(id="t:1", name="t", columns=["l"], rows=[[cell] for cell in expected], ordered=ordered)
    return _rows(scenario, answer(*got))


def test_records_in_a_literal_compare_as_the_entities_they_are() -> None:
    assert failure(["[(:A {name: 'a'}), [:T], (:B)]"], [node(["A"], name="a"), edge("T"), node(["B"])]) is None
    assert failure(["{n: (:A), r: [:T {w: 1}]}"], {"n": node(["A"]), "r": edge("T", w=1)}) is None
    path = {"nodes": [node(["A"]), node(["B"])], "edges": [edge("T")]}
    assert failure(["[<(:A)-[:T]->(:B)>]"], [path]) is None


def test_a_wrong_entity_in_a_literal_fails() -> None:
    assert failure(["[(:A {name: 'a'})]"], [node(["A"], name="b")]) is not None
    assert failure(["[(:A)]"], [node(["B"])]) is not None
    assert failure(["[[:T]]"], [edge("S")]) is not None
    assert failure(["[(:A), (:B)]"], [node(["B"]), node(["A"])]) is not None
    assert failure(["[(:A), (:A)]"], [node(["A"])]) is not None
    assert failure(["[<(:A)-[:T]->(:B)>]"], [{"nodes": [node(["B"]), node(["A"])], "edges": [edge("T")]}]) is not None
    assert failure(["[(:A)]", "[(:B)]"], [node(["B"])], [node(["A"])], ordered=True) is not None


def test_a_map_with_other_keys_is_no_entity() -> None:
    assert failure(["[(:A)]"], [{"id": 1, "kinds": ["A"]}]) is not None
    assert failure(["{id: 1, kinds: ['A']}"], {"id": 1, "kinds": ["A"]}) is None
