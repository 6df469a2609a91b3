"""The emitter: edges keep each end as written (upper-cased, with its own kind), across batch cuts."""

from __future__ import annotations

from houndgraph.graph.records import EdgeEnd, EdgeRecord
from houndgraph.ingest.ad_common import lower_keys
from houndgraph.ingest.emitter import Emitter
from houndgraph.ingest.errors import Warnings

# (start, start kind, end, end kind, edge kind): the same object ids again with other kinds, other cases and
# no kind, as converters emit them (an ACE's principal type, a member without a type, a lower-case SID).
EDGES = [
    ("s-1-5-21-1-512", "Group", "S-1-5-21-1-1001", "User", "GenericAll"),
    ("S-1-5-21-1-512", "Group", "S-1-5-21-1-1002", "User", "GenericAll"),
    ("S-1-5-21-1-512", None, "S-1-5-21-1-1001", "User", "WriteDacl"),
    ("S-1-5-21-1-1001", "User", "s-1-5-21-1-512", "Group", "MemberOf"),
    ("S-1-5-21-1-1001", "Computer", "S-1-5-21-1-512", None, "AdminTo"),
    ("S-1-5-21-1-512", "Group", "S-1-5-21-1-1001", "User", "Owns"),
]


def plain(start: str, start_kind: str | None, end: str, end_kind: str | None, kind: str) -> EdgeRecord:
    return EdgeRecord(EdgeEnd(start.upper(), start_kind), EdgeEnd(end.upper(), end_kind), kind, {"n": kind})


def test_edges_keep_each_ends_own_kind_and_upper_case_object_id() -> None:
    out = Emitter(batch_size=100, warnings=Warnings())
    for start, start_kind, end, end_kind, kind in EDGES:
        out.edge(start, start_kind, end, end_kind, kind, {"n": kind})
    (cut,) = list(out.take_rest())
    assert cut.batch().edges == [plain(*edge) for edge in EDGES]


def test_edges_are_the_same_whatever_the_batch_size() -> None:
    for batch_size in (1, 2, 4, 100):
        out = Emitter(batch_size=batch_size, warnings=Warnings())
        edges = []
        for start, start_kind, end, end_kind, kind in EDGES * 3:
            out.edge(start, start_kind, end, end_kind, kind, {"n": kind})
            edges += [edge for cut in out.take_full() for edge in cut.batch().edges]
        edges += [edge for cut in out.take_rest() for edge in cut.batch().edges]
        assert edges == [plain(*edge) for edge in EDGES * 3], batch_size


def test_edges_left_over_after_a_cut_keep_their_ends() -> None:
    # A record's edges are emitted before the batch is cut, so a cut leaves edges over for the next batch.
    for batch_size in (1, 2, 4, 5, 100):
        out = Emitter(batch_size=batch_size, warnings=Warnings())
        edges = []
        for _ in range(3):
            for start, start_kind, end, end_kind, kind in EDGES:
                out.edge(start, start_kind, end, end_kind, kind, {"n": kind})
            edges += [edge for cut in out.take_full() for edge in cut.batch().edges]
        edges += [edge for cut in out.take_rest() for edge in cut.batch().edges]
        assert edges == [plain(*edge) for edge in EDGES * 3], batch_size


def test_an_edge_with_an_empty_end_is_dropped() -> None:
    out = Emitter(batch_size=100, warnings=Warnings())
    out.edge("", "User", "S-1-5-21-1-1001", "User", "MemberOf", {})
    out.edge("S-1-5-21-1-1001", "User", "", None, "MemberOf", {})
    assert list(out.take_rest()) == []


def test_lower_keys_reads_each_spelling_of_a_layout_as_its_own() -> None:
    # Key layouts are remembered: the same keys in another order, or another case, must not reuse a layout.
    assert lower_keys({"Name": 1, "ObjectIdentifier": "S-1"}) == {"name": 1, "objectidentifier": "S-1"}
    assert lower_keys({"Name": 2, "ObjectIdentifier": "S-2"}) == {"name": 2, "objectidentifier": "S-2"}
    assert list(lower_keys({"ObjectIdentifier": "S-3", "Name": 3})) == ["objectidentifier", "name"]
    assert lower_keys({"name": 4, "objectidentifier": "S-4"}) == {"name": 4, "objectidentifier": "S-4"}
    # Two spellings of one key: the later one wins, as a key repeated in JSON does.
    assert lower_keys({"Name": 5, "NAME": 6}) == {"name": 6}
    assert lower_keys([1]) == {} and lower_keys(None) == {}
