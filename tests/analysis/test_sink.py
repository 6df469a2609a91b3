"""Writing a rule's result over what an earlier run stored: kept, changed, new and gone edges."""

from __future__ import annotations

import numpy as np
import pytest

from houndgraph.analysis import sink
from houndgraph.analysis.ad import owns
from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import ADEdge, ADNode
from tests.analysis.graphs import Graph

# Text COPY would misread unless escaped: a backslash, a tab, a newline, a carriage return, a quote.
AWKWARD = 'a\\b\tc\nd\re"f'


def owners(graph: Graph) -> None:
    graph.domain("D")
    for name in ("Alice", "Bob", "Carol", "Target"):
        graph.node(name, ADNode.User)
    graph.edge("Alice", ADEdge.OwnsRaw, "Target", isinherited=False, inheritancehash=AWKWARD)
    graph.edge("Bob", ADEdge.OwnsRaw, "Target", isinherited=False, inheritancehash="")


@pytest.mark.parametrize("copy_slice", [sink.COPY_SLICE, 1])
def test_a_rerun_updates_kept_edges_inserts_new_ones_and_deletes_the_rest(
    graph: Graph, copy_slice: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With slices of one edge, every edge's COPY text goes in a piece of its own.
    monkeypatch.setattr(sink, "COPY_SLICE", copy_slice)
    owners(graph)
    first = graph.run(owns.RULE).rules[0].edges[ADEdge.Owns]
    assert (first.total, first.created, first.deleted) == (2, 2, 0)
    before = graph.edge_properties("Alice", ADEdge.Owns, "Target")
    assert before["inheritancehash"] == AWKWARD and before["firstseen"] == before["lastseen"]
    # Alice's ACE is now inherited, Bob's is gone, Carol's is new; a self-edge of the kind was stored by hand.
    graph.conn.execute("UPDATE edge SET properties = properties || '{\"isinherited\": true}' WHERE kind_id = "
                       "(SELECT id FROM kind WHERE name = %s) AND start_id = (SELECT id FROM node WHERE "
                       "properties->>'objectid' = 'ALICE')", (ADEdge.OwnsRaw,))
    graph.conn.execute("DELETE FROM edge WHERE kind_id = (SELECT id FROM kind WHERE name = %s) AND start_id = "
                       "(SELECT id FROM node WHERE properties->>'objectid' = 'BOB')", (ADEdge.OwnsRaw,))
    graph.edge("Carol", ADEdge.OwnsRaw, "Target", isinherited=True, inheritancehash="h")
    graph.edge("Target", ADEdge.Owns, "Target")
    graph.load()
    again = graph.run(owns.RULE).rules[0].edges[ADEdge.Owns]
    assert (again.total, again.created, again.deleted) == (2, 1, 2)
    assert graph.derived(ADEdge.Owns) == {("Alice", "Target"), ("Carol", "Target")}
    after = graph.edge_properties("Alice", ADEdge.Owns, "Target")
    assert after["isinherited"] is True and after["inheritancehash"] == AWKWARD
    assert after["firstseen"] == before["firstseen"] and after["lastseen"] >= before["lastseen"]
    carol = graph.edge_properties("Carol", ADEdge.Owns, "Target")
    assert carol["isacl"] is True and carol["inheritancehash"] == "h" and carol["firstseen"] == carol["lastseen"]


def test_a_rule_deriving_nothing_removes_what_its_kinds_held(graph: Graph) -> None:
    owners(graph)
    graph.run(owns.RULE)
    graph.conn.execute("DELETE FROM edge WHERE kind_id = (SELECT id FROM kind WHERE name = %s)", (ADEdge.OwnsRaw,))
    counts = graph.run(owns.RULE).rules[0].edges[ADEdge.Owns]
    assert (counts.total, counts.created, counts.deleted) == (0, 0, 2)
    assert graph.derived(ADEdge.Owns) == set()


def test_pairs_given_as_an_array_are_written_like_pairs_given_as_tuples(graph: Graph) -> None:
    # A rule giving an (n, 2) array of node ids, with repeats and a self-pair, over what an earlier run stored.
    for name in ("Alice", "Bob", "Carol", "Target"):
        graph.node(name, ADNode.User)
    graph.load()
    ids = dict(graph.conn.execute("SELECT properties->>'name', id FROM node").fetchall())
    wanted: list[list[tuple[str, str]]] = [[("Alice", "Target"), ("Bob", "Target")],
                                           [("Alice", "Target"), ("Carol", "Target"), ("Carol", "Target"),
                                            ("Target", "Target")]]

    def array_rule(ctx: Context) -> Derived:
        return {ADEdge.CanApplyGPO: np.array([(ids[start], ids[end]) for start, end in wanted[0]], dtype=np.int64)}

    rule = Rule("ArrayPairs", (ADEdge.CanApplyGPO,), array_rule)
    first = graph.run(rule).rules[0].edges[ADEdge.CanApplyGPO]
    assert (first.total, first.created, first.deleted) == (2, 2, 0)
    before = graph.edge_properties("Alice", ADEdge.CanApplyGPO, "Target")
    assert before["firstseen"] == before["lastseen"]
    wanted.pop(0)
    graph.node("Dave", ADNode.User)  # a graph write: a run over an unchanged graph keeps the derived edges
    again = graph.run(rule).rules[0].edges[ADEdge.CanApplyGPO]
    assert (again.total, again.created, again.deleted) == (2, 1, 1)
    assert graph.derived(ADEdge.CanApplyGPO) == {("Alice", "Target"), ("Carol", "Target")}
    after = graph.edge_properties("Alice", ADEdge.CanApplyGPO, "Target")
    assert after["firstseen"] == before["firstseen"] and after["lastseen"] >= before["lastseen"]
    carol = graph.edge_properties("Carol", ADEdge.CanApplyGPO, "Target")
    assert carol["firstseen"] == carol["lastseen"]


@pytest.mark.parametrize("group_statements", [sink._GROUP_STATEMENTS, 0])
def test_pairs_grouped_by_properties_are_written_with_their_groups_properties(
        graph: Graph, group_statements: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # With no statement per group allowed, kept edges go through the staged table as a mapping's do.
    monkeypatch.setattr(sink, "_GROUP_STATEMENTS", group_statements)
    for name in ("Alice", "Bob", "Carol", "Target"):
        graph.node(name, ADNode.User)
    graph.load()
    ids = dict(graph.conn.execute("SELECT properties->>'name', id FROM node").fetchall())

    def pairs(*names: tuple[str, str]) -> sink.PairArray:
        return np.array([(ids[start], ids[end]) for start, end in names], dtype=np.int64).reshape(-1, 2)

    runs = [
        # Alice's pair is in both groups: the first one's properties; a self-pair is dropped.
        sink.GroupedPairs((({"tier": "a", "note": AWKWARD}, pairs(("Alice", "Target"), ("Bob", "Target"))),
                           ({"tier": "b"}, pairs(("Alice", "Target"), ("Target", "Target"))))),
        # Bob's is gone, Carol's new, Alice's moves to the other group.
        sink.GroupedPairs((({"tier": "b"}, pairs(("Alice", "Target"), ("Carol", "Target"))),
                           ({"tier": "c"}, pairs()))),
    ]

    def grouped_rule(ctx: Context) -> Derived:
        return {ADEdge.CanApplyGPO: runs[0]}

    rule = Rule("GroupedPairs", (ADEdge.CanApplyGPO,), grouped_rule)
    first = graph.run(rule).rules[0].edges[ADEdge.CanApplyGPO]
    assert (first.total, first.created, first.deleted) == (2, 2, 0)
    assert graph.derived(ADEdge.CanApplyGPO) == {("Alice", "Target"), ("Bob", "Target")}
    before = graph.edge_properties("Alice", ADEdge.CanApplyGPO, "Target")
    assert before["tier"] == "a" and before["note"] == AWKWARD and before["firstseen"] == before["lastseen"]
    assert graph.edge_properties("Bob", ADEdge.CanApplyGPO, "Target")["tier"] == "a"
    runs.pop(0)
    graph.node("Dave", ADNode.User)  # a graph write: a run over an unchanged graph keeps the derived edges
    again = graph.run(rule).rules[0].edges[ADEdge.CanApplyGPO]
    assert (again.total, again.created, again.deleted) == (2, 1, 1)
    assert graph.derived(ADEdge.CanApplyGPO) == {("Alice", "Target"), ("Carol", "Target")}
    after = graph.edge_properties("Alice", ADEdge.CanApplyGPO, "Target")
    assert after["tier"] == "b" and after["firstseen"] == before["firstseen"]
    assert after["lastseen"] >= before["lastseen"]
    carol = graph.edge_properties("Carol", ADEdge.CanApplyGPO, "Target")
    assert carol["tier"] == "b" and carol["firstseen"] == carol["lastseen"]
