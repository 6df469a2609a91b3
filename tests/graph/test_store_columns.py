"""The reading process's preparation (`ingest.prepared`) and the ACE plans of `emit_aces` against the plain paths.

`prepare_for_writer` and `read_prepared` (edges by column from the converters on) must give the writer what
`merge.prepare_batch(...).for_writer()` gives for `read_file`'s batches, and reading with a
batch's ACE plans remembered must give the records that reading each ACE afresh gives: on both SharpHound labs
of ../shared/data, at several batch sizes, and on batches built to hit the corners (duplicate edges, ends
without a kind, one object id under several kinds and spellings, name ends, odd ACEs).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
import pytest

from houndgraph.graph.kinds import ADEdge, ADNode
from houndgraph.graph.records import Batch, EdgeEnd, EdgeRecord, MatchBy, NodeRecord
from houndgraph.graph.store.columns import prepare_for_writer
from houndgraph.graph.store.merge import PreparedBatch, prepare_batch
from houndgraph.ingest import IngestFile, read_file
from houndgraph.ingest import emitter as emitter_module
from houndgraph.worker.read_process import read_prepared
from tests.conftest import DATA

LASTSEEN = "2026-01-02T03:04:05Z"
LAB_FILES = sorted((DATA / "sharphound").glob("*/*.json"))


def writer_view(prepared: PreparedBatch) -> dict[str, Any]:
    """Everything the writer reads of a prepared batch, in a form independent of how the rows are numbered."""
    rows = prepared.edge_rows
    return {
        "node_rows": prepared.node_rows,
        "record_ids": prepared.record_ids,
        "ends": prepared.end_objectids(),
        "kinded_ends": prepared.kinded_ends,
        "bare_ends": prepared.bare_ends,
        "edges": [(start, str(kind), end, properties) for start, kind, end, properties in rows.rows()],
        "objectids": sorted(rows.objectids),
        "kinds": sorted(map(str, rows.kinds)),
        "deletions": prepared.deletions,
        "source_kinds": prepared.source_kinds,
        "source_records": prepared.source_records,
        "name_edges": prepared.name_edges,
        "names": prepared.names,
    }


def document(path: Path) -> IngestFile:
    return IngestFile(name=path.name, parent_name=None, open=lambda: path.open("rb"))


def test_the_labs_have_files() -> None:
    assert len(LAB_FILES) >= 20


@pytest.mark.parametrize("batch_size", [7, 500, 20_000])
def test_prepared_for_the_writer_as_merge_prepares_the_lab_files(batch_size: int) -> None:
    compared = 0
    for path in LAB_FILES:
        for batch in read_file(document(path), batch_size=batch_size):
            # Preparing never changes the batch, so both preparations see the same records.
            fast = writer_view(prepare_for_writer(batch, LASTSEEN))
            assert fast == writer_view(prepare_batch(batch, LASTSEEN).for_writer()), path.name
            compared += len(batch.edges)
    assert compared > 3_000


@pytest.mark.parametrize("batch_size", [7, 500, 20_000])
def test_read_by_column_as_merge_prepares_the_records_of_the_lab_files(batch_size: int) -> None:
    # The reading process's path (`read_prepared`: edges by column from the converters on) against the records
    # `read_file` gives, prepared by `merge.prepare_batch`; the warnings too.
    compared = 0
    for path in LAB_FILES:
        plain_warnings: list[str] = []
        plain = [prepare_batch(batch, LASTSEEN).for_writer()
                 for batch in read_file(document(path), batch_size=batch_size, warnings=plain_warnings)]
        column_warnings: list[str] = []
        by_column = list(read_prepared(document(path), lastseen=LASTSEEN, batch_size=batch_size,
                                       warnings=column_warnings))
        assert [writer_view(batch) for batch in by_column] == [writer_view(batch) for batch in plain], path.name
        assert column_warnings == plain_warnings, path.name
        compared += sum(len(batch.edge_rows) for batch in plain)
    assert compared > 3_000


def test_read_by_column_keeps_a_records_edges_across_a_cut() -> None:
    # Records of many ACEs, duplicate edges and one principal under two kinds, cut into small batches: the edges left
    # over after a cut keep their ends in the next batch's table.
    aces = [_ace(f"s-1-5-21-1-{500 + index % 7}", right, kind="Group" if index % 3 else "User")
            for index in range(40) for right in ("GenericAll", "WriteDacl")]  # fmt: skip
    records = [{"ObjectIdentifier": f"S-1-5-21-1-{1001 + index}", "Properties": {"name": f"U{index}"}, "Aces": aces,
                "PrimaryGroupSID": "S-1-5-21-1-513"} for index in range(3)]  # fmt: skip
    text = orjson.dumps({"data": records, "meta": {"type": "users", "version": 6, "methods": 0, "count": 3}})
    file = IngestFile(name="users.json", parent_name=None, open=lambda: io.BytesIO(text))
    whole = None
    for batch_size in (1000, 1, 4, 25):
        plain = [writer_view(prepare_batch(batch, LASTSEEN).for_writer())
                 for batch in read_file(file, batch_size=batch_size)]
        by_column = [writer_view(batch) for batch in read_prepared(file, lastseen=LASTSEEN, batch_size=batch_size)]
        assert by_column == plain, batch_size
        # Whatever the cuts, the same edges (each batch merges its own duplicates).
        edges = {edge[:3] for view in by_column for edge in view["edges"]}
        whole = whole or edges
        assert edges == whole and len(edges) == 3 * (14 + 1), batch_size


def end(value: str, kind: str | None = None, match_by: MatchBy = MatchBy.ID) -> EdgeEnd:
    return EdgeEnd(value, kind, match_by)


def test_prepared_for_the_writer_in_the_corners() -> None:
    shared = {"isacl": False}
    domain_admins = end("S-1-5-21-1-512", ADNode.Group)
    user = end("S-1-5-21-1-1001", ADNode.User)
    batch = Batch(
        nodes=[
            NodeRecord("S-1-5-21-1-1001", (ADNode.User, ADNode.Base), {"name": "A", "collected": True}),
            NodeRecord("s-1-5-21-1-1001", (ADNode.User, ADNode.Base), {"name": "B", "collected": False}),
            NodeRecord("S-1-5-21-1-1002", (ADNode.Computer, ADNode.Base), {}),
        ],
        edges=[
            EdgeRecord(domain_admins, user, ADEdge.GenericAll, {"isacl": True, "isinherited": False}),
            # The same edge again, its kind a plain string and its ends other objects spelt otherwise.
            EdgeRecord(end("s-1-5-21-1-512", "Group"), end("S-1-5-21-1-1001"), "GenericAll", {"isinherited": True}),
            EdgeRecord(domain_admins, user, ADEdge.WriteDacl, shared),
            EdgeRecord(domain_admins, user, ADEdge.WriteDacl, {"isinherited": True}),
            EdgeRecord(domain_admins, end("S-1-5-21-1-1002", None), ADEdge.AdminTo, shared),
            EdgeRecord(end("S-1-5-21-1-9999"), end("S-1-5-21-1-1002", ADNode.Computer), ADEdge.MemberOf, shared),
            EdgeRecord(end("S-1-5-21-1-8888"), end("S-1-5-21-1-8888", "AZUser"), "Custom", {}),
            EdgeRecord(end("S-1-5-21-1-7777", "Group"), end("S-1-5-21-1-7777"), "Custom", {"text": "nul \x00 here"}),
        ],
        deletions=["S-1-5-21-1-4242"],
    )
    fast = writer_view(prepare_for_writer(batch, LASTSEEN))
    assert fast == writer_view(prepare_batch(batch, LASTSEEN).for_writer())
    merged = [edge for edge in fast["edges"] if edge[1] == "GenericAll"]
    assert len(merged) == 1 and orjson.loads(merged[0][3])["isinherited"] is True
    assert shared == {"isacl": False}  # the caller's dicts are left alone


class _Key(str):
    """A property name that is a `str` subclass (orjson encodes it only with OPT_NON_STR_KEYS)."""


@pytest.mark.parametrize("odd", [
    NodeRecord("S-1-5-21-1-1003", (ADNode.User, ADNode.Base), {"text": "nul \x00 here"}),
    NodeRecord("S-1-5-21-1-1003", (ADNode.User, ADNode.Base), {_Key("name"): "A"}),
    NodeRecord('S-1-5-21-1-"1003', (ADNode.User, ADNode.Base), {"name": "quote"}),
    NodeRecord("S-1-5-21-1-\\1003", (ADNode.User, ADNode.Base), {"name": "backslash"}),
    NodeRecord("S-1-5-21-1-\t1003", (ADNode.User, ADNode.Base), {"name": "tab"}),
    NodeRecord("S-1-5-21-1-1003-É", (ADNode.User, ADNode.Base), {"name": "É", "objectid": "written over"}),
])
def test_node_rows_as_merge_encodes_them(odd: NodeRecord) -> None:
    # Nodes are encoded in one pass where orjson and the object ids allow it, else as `encode_nodes` does.
    batch = Batch(nodes=[
        NodeRecord("S-1-5-21-1-1001", (ADNode.User, ADNode.Base), {"name": "A", "list": [{"a": "}"}], "n": None}),
        NodeRecord("S-1-5-21-1-1002", (ADNode.Computer, ADNode.Base), {}),
        odd,
    ], edges=[EdgeRecord(end("S-1-5-21-1-1001", "User"), end(odd.objectid, "User"), "GenericAll", {})])
    fast = prepare_for_writer(batch, LASTSEEN)
    assert writer_view(fast) == writer_view(prepare_batch(batch, LASTSEEN).for_writer())
    assert len(fast.node_rows) == 3
    rows = {objectid: orjson.loads(text) for objectid, _, text in fast.node_rows.rows()}
    assert set(rows) == {"S-1-5-21-1-1001", "S-1-5-21-1-1002", odd.objectid.upper()}
    assert all(properties["lastseen"] == LASTSEEN for properties in rows.values())
    assert rows[odd.objectid.upper()]["objectid"] == odd.objectid.upper()


def test_a_batch_with_name_ends_is_prepared_as_merge_prepares_it() -> None:
    batch = Batch(edges=[
        EdgeRecord(end("S-1-5-21-1-512", "Group"), end("S-1-5-21-1-1001", "User"), "GenericAll", {"a": 1}),
        EdgeRecord(end("alice", "Person", MatchBy.NAME), end("S-1-5-21-1-1001", "User"), "Knows", {}),
    ])
    fast = prepare_for_writer(batch, LASTSEEN)
    assert fast.name_edges and fast.names == {("alice", "Person")}
    assert writer_view(fast) == writer_view(prepare_batch(batch, LASTSEEN).for_writer())


class _Forgetful(dict):  # type: ignore[type-arg]
    """Remembers no ACE plan: every ACE is read afresh, as before the plans."""

    def __setitem__(self, key: Any, value: Any) -> None:
        pass


def _read_all(file: IngestFile, batch_size: int) -> tuple[list[Batch], list[str]]:
    warnings: list[str] = []
    return list(read_file(file, batch_size=batch_size, warnings=warnings)), warnings


def _read_planned_and_afresh(file: IngestFile, batch_size: int,
                             monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    planned = _read_all(file, batch_size)
    original_init = emitter_module.Emitter.__init__

    def forgetful_init(self: emitter_module.Emitter, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        self.ace_plans = _Forgetful()

    with monkeypatch.context() as patch:
        patch.setattr(emitter_module.Emitter, "__init__", forgetful_init)
        afresh = _read_all(file, batch_size)
    return planned, afresh


@pytest.mark.parametrize("batch_size", [3, 20_000])
def test_ace_plans_give_the_records_of_reading_each_ace_afresh_on_the_labs(
    batch_size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    for path in LAB_FILES:
        planned, afresh = _read_planned_and_afresh(document(path), batch_size, monkeypatch)
        assert planned == afresh, path.name


def _ace(sid: Any, right: Any, inherited: Any = False, kind: Any = "Group", inheritance_hash: Any = "") -> dict:
    return {"PrincipalSID": sid, "PrincipalType": kind, "RightName": right, "IsInherited": inherited,
            "InheritanceHash": inheritance_hash}  # fmt: skip


ODD_ACES = [
    _ace("S-1-5-21-1-512", "GenericAll"),
    _ace("S-1-5-21-1-512", "GenericAll", inherited=1),  # 1 is not true: not inherited
    _ace("S-1-5-21-1-512", "GenericAll", inherited=True),
    _ace("S-1-5-21-1-512", "GenericAll", inherited=True, inheritance_hash="H1"),
    _ace("S-1-5-21-1-512", "GenericAll", inherited=1.0),
    _ace(["S-1-5-21-1-512"], "GenericAll"),  # unhashable: read alone, no principal
    _ace(512, "GenericAll"),
    _ace(True, "GenericAll"),
    _ace("S-1-5-21-1-512", "GenericAll", kind=1),
    _ace("S-1-5-21-1-512", "genericall", kind="group"),
    _ace("S-1-5-21-1-512", "NoSuchRight"),
    _ace("S-1-5-21-1-512", ["GenericAll"]),
    {"principalsid": "S-1-5-21-1-513", "principaltype": "Group", "rightname": "WriteDacl", "isinherited": True},
    {"PRINCIPALSID": "S-1-5-21-1-514", "PrincipalType": "User", "RIGHTNAME": "AddMember"},
    _ace("S-1-5-21-1-520", "Owns"),
    _ace("S-1-5-21-1-520", "WriteOwner", inherited=True, inheritance_hash="H2"),
    _ace("S-1-5-21-1-1001", "GenericWrite"),  # the object itself: no edge
    _ace("S-1-5-21-1-1001-S-1-3-4", "GenericWrite", inherited=True),
    _ace("S-1-5-21-1-1001-S-1-3-4", "GenericWrite", inherited=True),
    _ace("", "GenericAll"),
    "not an ACE",
]


def test_ace_plans_give_the_records_of_reading_each_ace_afresh_on_odd_aces(monkeypatch: pytest.MonkeyPatch) -> None:
    records = [
        {"ObjectIdentifier": f"S-1-5-21-1-{1001 + index % 3}", "Properties": {"name": f"U{index}"},
         "Aces": ODD_ACES[index % 5:] + ODD_ACES[:index % 5], "PrimaryGroupSID": "S-1-5-21-1-513"}
        for index in range(12)
    ]  # fmt: skip
    text = orjson.dumps({"data": records, "meta": {"type": "users", "version": 6, "methods": 0, "count": 12}})
    file = IngestFile(name="users.json", parent_name=None, open=lambda: io.BytesIO(text))
    for batch_size in (1, 5, 1000):
        planned, afresh = _read_planned_and_afresh(file, batch_size, monkeypatch)
        assert planned == afresh, batch_size
        assert planned[0], batch_size
        assert any("NoSuchRight" in warning for warning in planned[1])
