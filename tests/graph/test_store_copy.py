"""The graph store's COPY of records as text: NUL characters, backslashes, quotes, tabs and newlines in object ids
and properties, edges sent in several pieces, ids of every width, and an OU restating many children (the edges
it may copy, those it must merge)."""

from __future__ import annotations

from typing import Any

import numpy as np
import psycopg
import pytest

from houndgraph.db import Database
from houndgraph.graph.kinds import ADEdge, ADNode
from houndgraph.graph.records import Batch, EdgeRecord, NodeRecord
from houndgraph.graph.store import GraphStore
from houndgraph.graph.store import edges as store_edges
from houndgraph.graph.store.edges import copy_pieces, copy_text
from tests.graph.store_helpers import (
    ADMINS,
    ALICE,
    DOMAIN,
    SEEN,
    edge,
    edges,
    group,
    nodes,
    user,
    without_lastseen,
)


def test_nul_characters_are_dropped_rather_than_failing_the_batch(conn: psycopg.Connection) -> None:
    GraphStore(conn).write(Batch(nodes=[user(ALICE, description="bad\x00value", tags=["a\x00b"])]), seen_at=SEEN)

    _, properties = nodes(conn)[ALICE]
    assert (properties["description"], properties["tags"]) == ("badvalue", ["ab"])


def test_edge_properties_keep_backslashes_quotes_tabs_and_newlines_on_new_and_existing_edges(
        conn: psycopg.Connection) -> None:
    awkward = {"path": "C:\\Windows\\", "quoted": 'say "hi"', "layout": "a\tb\nc\r\\n", "literal": "\\u0000"}
    store = GraphStore(conn)
    store.write(Batch(nodes=[user(ALICE), group(ADMINS)], edges=[edge(ALICE, "MemberOf", ADMINS, **awkward)]),
                seen_at=SEEN)
    # The second write goes through the staged upsert: both ends exist already.
    store.write(Batch(edges=[edge(ADMINS, "GenericAll", ALICE, **awkward)]), seen_at=SEEN)

    stored = edges(conn)
    assert without_lastseen(stored[(ALICE, "MemberOf", ADMINS)]) == awkward
    assert without_lastseen(stored[(ADMINS, "GenericAll", ALICE)]) == awkward


@pytest.mark.parametrize("odd_one", ["empty", "nul", "enum key", "none"])
def test_every_edge_of_a_batch_keeps_its_own_properties_whatever_shapes_share_the_batch(
        conn: psycopg.Connection, odd_one: str) -> None:
    # A batch's edge properties are encoded together; one object of another shape must not change the others.
    odd: dict[str, Any] = {
        "empty": {},
        "nul": {"description": "bad\x00value"},
        "enum key": {ADEdge.MemberOf: "kind as key"},
        "none": {"nested": {"a": {"b": "}"}}, "text": "}\n{", "list": [{}, {"c": None}]},
    }[odd_one]
    plain = [{"isacl": True, "isinherited": index % 2 == 0, "inheritancehash": f"h{index}"} for index in range(3)]
    ends = [f"{DOMAIN}-{3000 + index}" for index in range(4)]
    batch = Batch(nodes=[group(ADMINS)], edges=[
        edge(end, "GenericAll", ADMINS, ADNode.User, **properties) for end, properties in zip(ends, [*plain, odd],
                                                                                              strict=True)
    ])
    GraphStore(conn).write(batch, seen_at=SEEN)

    stored = {start: without_lastseen(properties) for (start, _, _), properties in edges(conn).items()}
    expected_odd = {"description": "badvalue"} if odd_one == "nul" else {str(key): value for key, value in odd.items()}
    assert [stored[end] for end in ends] == [*plain, expected_odd]
    assert all(properties["lastseen"] == "2026-03-01T12:30:00Z" for properties in edges(conn).values())


def test_edge_copy_pieces_built_by_column_read_as_the_rows_written_one_by_one() -> None:
    # `copy_pieces` writes ids as fixed-width digits and shares each properties text among its edges; COPY must read
    # back what `copy_text` writes row by row.
    start = np.array([7, 123_456, 0, 99], dtype=np.int64)
    end = np.array([1_000_000, 5, 42, 99], dtype=np.int64)
    kind = np.array([3, 12, 1, 300], dtype=np.int64)
    texts = ['{"a":1}', '{"path":"C:\\\\Windows"}', "{}"]
    text_at = np.array([1, 0, 1, 2], dtype=np.int32)
    escaped = [f"\t{text}\n".replace("\\", "\\\\").encode() for text in texts]

    def read(payload: bytes) -> list[tuple[int, int, int, str]]:
        rows = [line.split("\t") for line in payload.decode().splitlines()]
        return [(int(a), int(b), int(c), d.replace("\\\\", "\\")) for a, b, c, d in rows]

    by_row = copy_text(zip(start.tolist(), end.tolist(), kind.tolist(), [texts[at] for at in text_at.tolist()],
                           strict=True))
    assert read(b"".join(copy_pieces(start, end, kind, escaped, text_at))) == read(by_row)
    assert b"".join(copy_pieces(start[:0], end[:0], kind[:0], escaped, text_at[:0])) == b""


def test_edges_sent_in_several_copy_pieces_are_all_written(conn: psycopg.Connection,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # An edge COPY goes out in pieces of `COPY_PIECE_ROWS` edges: new edges (copied into the table) and restated
    # ones (staged and upserted) must all land, with their properties, whatever piece they travel in.
    monkeypatch.setattr(store_edges, "COPY_PIECE_ROWS", 7)
    store = GraphStore(conn)
    users = [f"{DOMAIN}-{5000 + index}" for index in range(12)]
    groups = [f"{DOMAIN}-{6000 + index}" for index in range(5)]
    store.write(Batch(nodes=[user(objectid) for objectid in users] + [group(objectid) for objectid in groups]),
                seen_at=SEEN)
    memberships = [(member, target) for member in users for target in groups]
    written = store.write(Batch(edges=[edge(member, "MemberOf", target, round=1) for member, target in memberships]),
                          seen_at=SEEN)
    restated = store.write(Batch(edges=[edge(member, "MemberOf", target, round=2)
                                        for member, target in memberships]), seen_at=SEEN)

    assert written.edges == restated.edges == len(memberships) == 60
    stored = edges(conn)
    assert {(start, end) for start, kind, end in stored if kind == "MemberOf"} == set(memberships)
    assert {properties["round"] for properties in stored.values()} == {2}


def test_edges_with_ids_of_every_width_land_on_their_nodes(conn: psycopg.Connection) -> None:
    # Node ids of several digit counts in one batch: the COPY's fixed-width ids must name the same nodes.
    store = GraphStore(conn)
    users = [f"{DOMAIN}-{4000 + index}" for index in range(120)]
    store.write(Batch(nodes=[user(objectid) for objectid in users]), seen_at=SEEN)
    store.write(Batch(nodes=[group(ADMINS)], edges=[edge(objectid, "MemberOf", ADMINS) for objectid in users]),
                seen_at=SEEN)
    store.write(Batch(edges=[edge(ADMINS, "GenericAll", objectid) for objectid in users]), seen_at=SEEN)

    stored = edges(conn)
    assert {start for start, kind, _ in stored if kind == "MemberOf"} == set(users)
    assert {end for _, kind, end in stored if kind == "GenericAll"} == set(users)


def test_records_with_awkward_object_ids_and_properties_are_stored_as_given(conn: psycopg.Connection) -> None:
    # Records reach COPY as text, a kind list's rows in one piece: an object id with a tab, newline, carriage return
    # or backslash, and properties with backslashes and line separators, must come back exactly.
    awkward = {"path": "C:\\Windows\\", "text": "a\tb\nc\r\\n \u2028 end", "literal": "\\u0000", "quote": '"q"'}
    ids = [f"{DOMAIN}-\t1", f"{DOMAIN}-\\2", f"{DOMAIN}-\n3", f"{DOMAIN}-\r4", f"{DOMAIN}-5"]
    GraphStore(conn).write(Batch(nodes=[user(objectid, **awkward) for objectid in ids[:3]]
                           + [group(objectid, **awkward) for objectid in ids[3:]]), seen_at=SEEN)

    stored = nodes(conn)
    assert set(stored) == {objectid.upper() for objectid in ids}
    for objectid in ids:
        kinds, properties = stored[objectid.upper()]
        assert kinds == ([ADNode.User, ADNode.Base] if objectid in ids[:3] else [ADNode.Group, ADNode.Base])
        assert without_lastseen(properties) == {**awkward, "objectid": objectid.upper()}


def ou_children(count: int) -> list[str]:
    return [f"{DOMAIN}-{5000 + index}" for index in range(count)]


OU = "0B5E0001-6B36-4E4A-9F61-000000000001"


def contains(child: str, **properties: Any) -> EdgeRecord:
    return edge(OU, ADEdge.Contains, child, ADNode.OU, ADNode.User, **properties)


def row_of_edge_into(conn: psycopg.Connection, objectid: str) -> tuple[str, ...] | None:
    """Where the edge into `objectid` is stored: a row rewritten moves."""
    return conn.execute("SELECT edge.ctid::text FROM edge JOIN node ON node.id = edge.end_id "
                        "WHERE node.properties ->> 'objectid' = %s", (objectid,)).fetchone()


def test_an_ou_restating_many_children_writes_the_few_new_edges_once_and_leaves_the_others_alone(
    empty_graph: Database,
) -> None:
    """An OU file names hundreds of children whose files already wrote their containment, and a few whose
    containment is new: every edge ends up stored once, a restated one untouched, a changed one merged."""
    children = ou_children(700)
    stored, new = children[:660], children[660:]
    with empty_graph.connect_raw() as conn:
        GraphStore(conn).write(
            Batch(nodes=[NodeRecord(OU, (ADNode.OU, ADNode.Base), {}), *(user(child) for child in children)],
                  edges=[contains(child, isacl=False) for child in stored]),
            seen_at=SEEN,
        )
        conn.commit()
        untouched = row_of_edge_into(conn, stored[1])

        restated = [contains(child, isacl=False) for child in children]
        restated[0] = contains(stored[0], isacl=False, inherited=True)
        stats = GraphStore(conn).write(Batch(edges=restated), seen_at=SEEN)
        conn.commit()

        graph = edges(conn)
        assert stats.edges == 700
        assert {key for key in graph if key[1] == "Contains"} == {(OU, "Contains", child) for child in children}
        assert conn.execute("SELECT count(*) FROM edge").fetchone() == (700,)
        assert without_lastseen(graph[(OU, "Contains", stored[0])]) == {"isacl": False, "inherited": True}
        assert all(without_lastseen(graph[(OU, "Contains", child)]) == {"isacl": False} for child in new)
        assert row_of_edge_into(conn, stored[1]) == untouched
