"""Generic OpenGraph documents: conversion, and the validation rules of the reference's schemas."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from houndgraph.graph.records import MatchBy
from houndgraph.ingest import IngestError, expand_upload, read_file, validate_upload
from houndgraph.ingest.opengraph import MAX_SOURCE_KIND_LENGTH
from houndgraph.models.source_kind import SourceKind
from houndgraph.worker.read_process import read_prepared
from tests.ingest.helpers import read_path, write_json

N1 = "nodes[0] schema validation failed with 1 error(s): "
E1 = "edges[0] schema validation failed with 1 error(s): "
MIXED = 'nodes[0] schema validation error. properties["{}"] contains a mixed-type array'
E2 = "edges[0] schema validation failed with 2 error(s): "


def graph(nodes: list[Any] | None = None, edges: list[Any] | None = None, **top: Any) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if nodes is not None:
        body["nodes"] = nodes
    if edges is not None:
        body["edges"] = edges
    return {"graph": body, **top}


def test_nodes_and_edges_with_a_source_kind(tmp_path: Path) -> None:
    document = graph(
        nodes=[
            {
                "id": "person-1",
                "kinds": ["Person", "Employee"],
                "properties": {"name": "Alice", "age": 41, "tags": ["a", "b"], "gone": None},
            },
            {"id": "server-9", "kinds": ["Server"]},
        ],
        edges=[
            {
                "start": {"value": "person-1"},
                "end": {"value": "server-9", "kind": "Server"},
                "kind": "AdminOf",
                "properties": {"since": 2020},
            },
            {
                "start": {"value": "Alice", "match_by": "name"},
                "end": {"value": "server-9", "match_by": "id"},
                "kind": "LogsOnTo",
                "properties": None,
            },
        ],
        metadata={"source_kind": "HR"},
    )
    result = read_path(write_json(tmp_path, document))
    alice = result.node("PERSON-1")
    assert alice.kinds == ("Person", "Employee", "HR")
    assert alice.properties == {"name": "Alice", "age": 41, "tags": ["a", "b"], "primarykind": "Person"}
    assert result.node("SERVER-9").kinds == ("Server", "HR")
    admin = result.edge("AdminOf", "PERSON-1", "SERVER-9")
    assert (admin.start.match_by, admin.start.kind, admin.end.kind) == (MatchBy.ID, None, "Server")
    assert admin.properties == {"since": 2020}
    logon = result.edge("LogsOnTo", "ALICE", "SERVER-9")
    assert logon.start.match_by is MatchBy.NAME and logon.properties == {}
    assert result.warnings == []


def source_kinds_by_batch(path: Path, batch_size: int) -> tuple[list[list[str]], list[list[str]]]:
    """Each batch's source kinds, as read (`read_file`) and as prepared for the writer (`read_prepared`)."""
    (file,) = expand_upload(path, max_unzipped_bytes=1 << 20, max_ratio=1000)
    read = [batch.source_kinds for batch in read_file(file, batch_size=batch_size)]
    prepared = [batch.source_kinds for batch in read_prepared(file, lastseen="2026-01-01T00:00:00Z",
                                                              batch_size=batch_size)]
    return read, prepared


@pytest.mark.parametrize("batch_size", [1, 5000])
def test_the_source_kind_goes_with_the_first_batch_to_register(tmp_path: Path, batch_size: int) -> None:
    nodes = [{"id": f"repo-{number}", "kinds": ["Repository"]} for number in range(3)]
    path = write_json(tmp_path, graph(nodes=nodes, metadata={"source_kind": "GitHub"}))
    read, prepared = source_kinds_by_batch(path, batch_size)
    assert read == prepared == [["GitHub"]] + [[]] * (len(read) - 1)
    assert len(read) == (3 if batch_size == 1 else 1)


def test_a_file_whose_nodes_are_all_skipped_still_registers_its_source_kind(tmp_path: Path) -> None:
    nodes = [{"id": "a", "kinds": ["K"], "properties": {"objectid": "b"}}]
    path = write_json(tmp_path, graph(nodes=nodes, metadata={"source_kind": "GitHub"}))
    assert source_kinds_by_batch(path, 5000) == ([["GitHub"]], [["GitHub"]])


def test_a_source_kind_too_long_to_register_fails_the_file(tmp_path: Path) -> None:
    assert SourceKind.__table__.c.name.type.length == MAX_SOURCE_KIND_LENGTH
    fits = write_json(tmp_path, graph(nodes=[{"id": "a", "kinds": ["K"]}],
                                      metadata={"source_kind": "S" * MAX_SOURCE_KIND_LENGTH}), name="fits.json")
    assert source_kinds_by_batch(fits, 5000)[0] == [["S" * MAX_SOURCE_KIND_LENGTH]]
    too_long = write_json(tmp_path, graph(nodes=[{"id": "a", "kinds": ["K"]}],
                                          metadata={"source_kind": "S" * (MAX_SOURCE_KIND_LENGTH + 1)}))
    with pytest.raises(IngestError, match="data.json: failed to register sourceKind: longer than 255 characters"):
        read_path(too_long)


def test_no_source_kind_has_nothing_to_register(tmp_path: Path) -> None:
    for number, metadata in enumerate([{"source_kind": None}, {"source_kind": ""}, None]):
        document = graph(nodes=[{"id": "a", "kinds": ["K"]}], **({} if metadata is None else {"metadata": metadata}))
        path = write_json(tmp_path, document, name=f"data-{number}.json")
        assert source_kinds_by_batch(path, 5000) == ([[]], [[]])


def test_edges_only_and_no_source_kind(tmp_path: Path) -> None:
    document = graph(
        edges=[{"start": {"value": "a"}, "end": {"value": "b"}, "kind": "K"}], metadata={"source_kind": None}
    )
    result = read_path(write_json(tmp_path, document))
    assert result.nodes == [] and result.triples() == {("A", "K", "B")}


def test_a_node_whose_objectid_property_contradicts_its_id_is_skipped(tmp_path: Path) -> None:
    nodes = [
        {"id": "a", "kinds": ["K"], "properties": {"objectid": "b"}},
        {"id": "c", "kinds": ["K"], "properties": {"objectid": "C"}},
    ]
    result = read_path(write_json(tmp_path, graph(nodes=nodes)))
    assert [node.objectid for node in result.nodes] == ["C"]
    assert result.warnings == ["node 'a' skipped: its objectid property 'b' differs from its id"]


@pytest.mark.parametrize(
    ("node", "message"),
    [
        ({"kinds": ["K"]}, N1 + "[missing property 'id']"),
        ({"id": 5, "kinds": ["K"]}, N1 + "['id' must be a non-empty string]"),
        ({"id": "a", "kinds": []}, N1 + "['kinds' must have between 1 and 3 items, not 0]"),
        ({"id": "a", "kinds": ["A", "B", "C", "D"]}, N1 + "['kinds' must have between 1 and 3 items, not 4]"),
        ({"id": "a", "kinds": "K"}, N1 + "['kinds' must be an array of non-empty strings]"),
        (
            {"id": "a", "kinds": ["K"], "properties": {"o": {"x": 1}}},
            N1 + "[Invalid property 'o': objects are not allowed in the property bag. "
            "Use only strings, numbers, booleans, nulls, or arrays of these types.]",
        ),
        (
            {"id": "a", "kinds": ["K"], "properties": {"l": [{"x": 1}]}},
            N1 + "[Invalid property 'l': array contains an object. "
            "Arrays must contain only primitive values (string, number, boolean, or null).]",
        ),
        ({"id": "a", "kinds": ["K"], "properties": {"m": [1, "one"]}}, MIXED.format("m")),
        ({"id": "a", "kinds": ["K"], "properties": {"b": [True, 1]}}, MIXED.format("b")),
        ({"id": "a", "kinds": ["K"], "properties": [1]}, N1 + "['properties' must be an object or null]"),
        ("a", N1 + "[the node must be an object]"),
    ],
)
def test_node_rules(tmp_path: Path, node: Any, message: str) -> None:
    assert validate_upload(write_json(tmp_path, graph(nodes=[node]))) == [message]


@pytest.mark.parametrize(
    ("edge", "message"),
    [
        ({"start": {"value": "a"}, "end": {"value": "b"}}, E1 + "[missing property 'kind']"),
        ({"end": {"value": "b"}, "kind": "K"}, E1 + "[missing property 'start']"),
        ({"start": {"match_by": "id"}, "end": {"value": "b"}, "kind": "K"}, E1 + "[missing property 'start.value']"),
        (
            {"start": {"value": "a", "match_by": "sid"}, "end": {"value": "b"}, "kind": "K"},
            E1 + "['start.match_by' must be one of 'id', 'name']",
        ),
        (
            {"start": "a", "end": {"value": "b", "kind": 3}, "kind": "K"},
            E2 + "['start' must be an object with a value, 'end.kind' must be a string]",
        ),
    ],
)
def test_edge_rules(tmp_path: Path, edge: Any, message: str) -> None:
    assert validate_upload(write_json(tmp_path, graph(edges=[edge]))) == [message]


def test_metadata_rules(tmp_path: Path) -> None:
    document = graph(nodes=[], metadata={"source_kind": 7, "owner": "me"})
    assert validate_upload(write_json(tmp_path, document)) == [
        "metadata tag is invalid: additional property 'owner' is not allowed",
        "metadata tag is invalid: source_kind must be a string or null",
    ]


def test_validation_stops_listing_after_fifteen_errors(tmp_path: Path) -> None:
    errors = validate_upload(write_json(tmp_path, graph(nodes=[{"id": "x"}] * 40)))
    assert len(errors) == 15
    assert errors[-1].startswith("nodes[14] ")
