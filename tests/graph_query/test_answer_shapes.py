"""A graph answer's nodes and edges are written as dicts made in their wire shape (`graph_shapes.node_wire`,
`edge_wire`, `unified_wire`, `GraphAnswer.wire`), not through the pydantic models that document them: both must
write the same."""

from __future__ import annotations

import random
from typing import Any

import pytest

from houndgraph.graph.cypher.temporal.stored import ISO, TAG
from houndgraph.graph.rows import EdgeRow, NodeRow
from houndgraph.graph_query.schemas import CypherGraph, GraphAnswer
from houndgraph.kit import graph_shapes
from houndgraph.kit.graph_shapes import edge_wire, graph_edge, graph_node, node_wire, unified_graph, unified_wire

KINDS = [("Base", "User"), ("Base", "Group", "Tag_Tier_Zero"), ("Base", "Computer", "Tag_Owned"), ("Custom",), ()]
VALUES: list[Any] = [None, True, 0, 1700000000, 1.5, "", "text", "2024-01-02T03:04:05Z", [], [None, 1], {"a": None},
                     {TAG: "datetime", ISO: "2024-01-02T03:04:05Z"}, [{TAG: "date", ISO: "2024-01-02"}]]


def properties(rng: random.Random) -> dict[str, Any]:
    drawn = {key: rng.choice(VALUES) for key in rng.sample(["title", "enabled", "lastlogon", "email", "data"], 3)}
    for key, choices in (("objectid", [None, "", "S-1-5-21-1-512"]), ("name", [None, "", "ALICE@LAB.LOCAL", 7]),
                         ("system_tags", [None, "", "admin_tier_0", "owned admin_tier_0", ["admin_tier_0"]]),
                         ("primarykind", [None, "Person", 3]), ("lastseen", VALUES)):
        if rng.random() < 0.7:
            drawn[key] = rng.choice(choices)
    return drawn


@pytest.mark.parametrize("include_properties", [False, True])
def test_nodes_and_edges_are_written_as_their_models_write_them(include_properties: bool,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # An entity without a usable lastseen shows the time of the answer: one time for both writings.
    monkeypatch.setattr(graph_shapes.time, "time_ns", lambda: 1_700_000_000_123_000_000)
    rng = random.Random(7)
    for number in range(300):
        node = NodeRow(number, rng.choice(KINDS), properties(rng))
        edge = EdgeRow(number, number, number + 1, rng.choice(["MemberOf", "AdminTo"]), properties(rng))
        expected_node = graph_node(node, include_properties).model_dump(mode="json", by_alias=True, exclude_none=True)
        expected_edge = graph_edge(edge, include_properties).model_dump(mode="json", by_alias=True, exclude_none=True)
        assert list(node_wire(node, include_properties).items()) == list(expected_node.items()), number
        assert list(edge_wire(edge, include_properties).items()) == list(expected_edge.items()), number


def test_an_answer_is_written_as_its_model_writes_it() -> None:
    rng = random.Random(11)
    nodes = [NodeRow(n, rng.choice(KINDS), properties(rng) | {"lastseen": "2024-01-01T00:00:00Z"}) for n in range(20)]
    edges = [EdgeRow(n, n, n + 1, "MemberOf", {"lastseen": 1700000000}) for n in range(20)]
    literals: list[Any] = [{"key": "x", "value": None}, {"key": "y", "value": {"a": None, "b": [1, None]}},
                           {"key": "z", "value": 3}]
    for keys in (None, ["name", "objectid"]):
        answer = GraphAnswer(nodes={str(n.id): node_wire(n, True) for n in nodes},
                             edges=[edge_wire(e, True) for e in edges], literals=literals,
                             node_keys=keys, edge_keys=keys)
        model = CypherGraph(nodes={str(n.id): graph_node(n, True) for n in nodes},
                            edges=[graph_edge(e, True) for e in edges], literals=literals, node_keys=keys,
                            edge_keys=keys)
        written, expected = answer.wire(), model.model_dump(mode="json", by_alias=True, exclude_none=True)
        assert list(written) == list(expected)
        assert {key: value for key, value in written.items() if key != "literals"} == \
            {key: value for key, value in expected.items() if key != "literals"}
        # Every literal has its value, null too, as the reference writes them (the model's dump leaves it out).
        assert written["literals"] == [{"key": "x", "value": None}, {"key": "y", "value": {"a": None, "b": [1, None]}},
                                       {"key": "z", "value": 3}]


@pytest.mark.parametrize("include_properties", [False, True])
def test_a_path_answer_is_written_as_its_model_writes_it(include_properties: bool) -> None:
    rng = random.Random(5)
    nodes = [NodeRow(n, rng.choice(KINDS), properties(rng) | {"lastseen": 1700000000 + n}) for n in range(12)]
    # Edges in no order, some repeating another's (source, kind, target): the first by id is written.
    edges = [EdgeRow(rng.randrange(1000), s, s + 1, rng.choice(["MemberOf", "AdminTo"]), {"lastseen": "2024-01-01"})
             for s in (rng.randrange(12) for _ in range(30))]
    expected = unified_graph(nodes, edges, include_properties=include_properties).model_dump(
        mode="json", by_alias=True, exclude_none=True)
    assert unified_wire(nodes, edges, include_properties=include_properties) == expected
    assert list(unified_wire(nodes, edges, include_properties=include_properties)) == list(expected)
