"""The graph store against the real PostgreSQL: what an ingest leaves in the node and edge tables."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

import numpy as np
import psycopg
import pytest

from houndgraph.db import Database
from houndgraph.graph.kinds import ADEdge, ADNode, AZNode, primary_kind
from houndgraph.graph.records import Batch, EdgeEnd, EdgeRecord, MatchBy, NodeRecord
from houndgraph.graph.store import GraphStore, WriteStats
from houndgraph.graph.store import edges as store_edges
from houndgraph.graph.store.edges import copy_pieces, copy_text, upsert_edges
from houndgraph.ingest import IngestFile, read_file
from tests.conftest import DATA

SEEN = datetime(2026, 3, 1, 12, 30, tzinfo=UTC)
SEEN_LATER = SEEN + timedelta(days=1)
DOMAIN = "S-1-5-21-1-2-3"
ALICE = f"{DOMAIN}-1104"
BOB = f"{DOMAIN}-1105"
ADMINS = f"{DOMAIN}-512"
WS1 = f"{DOMAIN}-2001"


@pytest.fixture
def conn(empty_graph: Database) -> Iterator[psycopg.Connection]:
    """A connection in a transaction on an empty graph; nothing is committed unless a test does."""
    with empty_graph.connect_raw() as connection:
        yield connection


def user(objectid: str, **properties: Any) -> NodeRecord:
    return NodeRecord(objectid, (ADNode.User, ADNode.Base), properties)


def group(objectid: str, **properties: Any) -> NodeRecord:
    return NodeRecord(objectid, (ADNode.Group, ADNode.Base), properties)


def edge(start: str, kind: str, end: str, start_kind: str | None = None, end_kind: str | None = None,
         **properties: Any) -> EdgeRecord:  # fmt: skip
    return EdgeRecord(EdgeEnd(start, start_kind), EdgeEnd(end, end_kind), kind, properties)


def nodes(conn: psycopg.Connection) -> dict[str, tuple[list[str], dict[str, Any]]]:
    """Every node: object id -> (kind names in stored order, properties)."""
    rows = conn.execute(
        """
        SELECT n.properties ->> 'objectid',
               ARRAY(SELECT k.name FROM unnest(n.kind_ids) WITH ORDINALITY AS u (id, i)
                     JOIN kind AS k ON k.id = u.id ORDER BY u.i),
               n.properties
        FROM node AS n
        """
    ).fetchall()
    return {objectid: (kinds, properties) for objectid, kinds, properties in rows}


def edges(conn: psycopg.Connection) -> dict[tuple[str, str, str], dict[str, Any]]:
    """Every edge: (start object id, kind, end object id) -> properties."""
    rows = conn.execute(
        """
        SELECT s.properties ->> 'objectid', k.name, e.properties ->> 'objectid', edge.properties
        FROM edge JOIN node AS s ON s.id = edge.start_id JOIN node AS e ON e.id = edge.end_id
        JOIN kind AS k ON k.id = edge.kind_id
        """
    ).fetchall()
    return {(start, kind, end): properties for start, kind, end, properties in rows}


def without_lastseen(properties: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in properties.items() if key != "lastseen"}


def test_a_record_becomes_one_node_with_upper_cased_object_id_kinds_and_properties(conn: psycopg.Connection) -> None:
    stats = GraphStore(conn).write(Batch(nodes=[user("s-1-5-21-1-2-3-1104", name="ALICE@CORP.LOCAL")]), seen_at=SEEN)

    assert stats.nodes == 1
    kinds, properties = nodes(conn)[ALICE]
    assert kinds == ["User", "Base"]
    assert properties == {"objectid": ALICE, "name": "ALICE@CORP.LOCAL", "lastseen": "2026-03-01T12:30:00Z"}


def test_a_stub_record_does_not_erase_the_full_record(conn: psycopg.Connection) -> None:
    store = GraphStore(conn)
    full = NodeRecord(DOMAIN, (ADNode.Domain, ADNode.Base),
                      {"name": "CORP.LOCAL", "functionallevel": "2016", "collected": True})  # fmt: skip
    store.write(Batch(nodes=[full]), seen_at=SEEN)
    # A later file (e.g. a trust seen from the other domain) only knows the id.
    store.write(Batch(nodes=[NodeRecord(DOMAIN, (ADNode.Domain, ADNode.Base), {"collected": False})]), seen_at=SEEN)

    _, properties = nodes(conn)[DOMAIN]
    assert properties["name"] == "CORP.LOCAL"
    assert properties["functionallevel"] == "2016"
    assert properties["collected"] is True


def test_stub_and_full_record_in_one_batch_merge_in_either_order(conn: psycopg.Connection) -> None:
    stub = NodeRecord(DOMAIN.lower(), (ADNode.Domain, ADNode.Base), {"collected": False})
    full = NodeRecord(DOMAIN, (ADNode.Domain, ADNode.Base), {"name": "CORP.LOCAL", "collected": True})
    other = "S-1-5-21-9-9-9"
    stub_last = [NodeRecord(other, (ADNode.Domain, ADNode.Base), {"name": "OTHER.LOCAL", "collected": True}),
                 NodeRecord(other, (ADNode.Domain, ADNode.Base), {"collected": False})]  # fmt: skip

    stats = GraphStore(conn).write(Batch(nodes=[stub, full, *stub_last]), seen_at=SEEN)

    assert stats.nodes == 2
    graph = nodes(conn)
    assert len(graph) == 2
    assert without_lastseen(graph[DOMAIN][1]) == {"objectid": DOMAIN, "name": "CORP.LOCAL", "collected": True}
    assert without_lastseen(graph[other][1]) == {"objectid": other, "name": "OTHER.LOCAL", "collected": True}


def test_a_later_record_overwrites_the_keys_it_carries_and_keeps_the_others(conn: psycopg.Connection) -> None:
    store = GraphStore(conn)
    store.write(Batch(nodes=[user(ALICE, name="ALICE@CORP.LOCAL", enabled=True, description="old")]), seen_at=SEEN)
    store.write(Batch(nodes=[user(ALICE, enabled=False, description=None)]), seen_at=SEEN_LATER)

    _, properties = nodes(conn)[ALICE]
    assert properties["name"] == "ALICE@CORP.LOCAL"
    assert properties["enabled"] is False
    # An explicit null from the collector clears the value.
    assert properties["description"] is None
    assert properties["lastseen"] == "2026-03-02T12:30:00Z"


def test_kinds_are_added_to_the_stored_ones_which_stay_first(conn: psycopg.Connection) -> None:
    store = GraphStore(conn)
    store.write(Batch(nodes=[group(ADMINS, name="DOMAIN ADMINS@CORP.LOCAL")]), seen_at=SEEN)
    store.write(Batch(nodes=[NodeRecord(ADMINS, (ADNode.LocalGroup, ADNode.Base), {})]), seen_at=SEEN)

    kinds, _ = nodes(conn)[ADMINS]
    assert kinds == ["Group", "Base", "ADLocalGroup"]
    assert primary_kind(kinds) == ADNode.Group


def test_an_edge_to_an_unknown_object_creates_a_placeholder_of_the_given_kind(conn: psycopg.Connection) -> None:
    batch = Batch(
        nodes=[user(ALICE)],
        edges=[
            edge(ALICE, ADEdge.AdminTo, WS1.lower(), end_kind=ADNode.Computer),
            edge(ALICE, "AZOwns", "00000000-AAAA-4000-8000-000000000001", end_kind=AZNode.App),
            edge(ALICE, ADEdge.GenericAll, f"{DOMAIN}-9999"),
            edge(ALICE, "Knows", "PERSON-1", end_kind="Person"),
        ],
    )
    stats = GraphStore(conn).write(batch, seen_at=SEEN)

    graph = nodes(conn)
    assert stats.placeholders == 4
    assert graph[WS1] == (["Computer", "Base"], {"objectid": WS1, "lastseen": "2026-03-01T12:30:00Z"})
    assert graph["00000000-AAAA-4000-8000-000000000001"][0] == ["AZApp", "AZBase"]
    # SharpHound's name for a principal of unknown type.
    assert graph[f"{DOMAIN}-9999"][0] == ["Base"]
    # An OpenGraph kind gets no AD or Azure base kind invented for it.
    assert graph["PERSON-1"][0] == ["Person"]
    assert (ALICE, "AdminTo", WS1) in edges(conn)


def test_a_placeholder_is_completed_by_the_record_that_arrives_later(conn: psycopg.Connection) -> None:
    store = GraphStore(conn)
    store.write(Batch(edges=[edge(ALICE, ADEdge.MemberOf, ADMINS, ADNode.User, ADNode.Group)]), seen_at=SEEN)
    store.write(Batch(nodes=[group(ADMINS, name="DOMAIN ADMINS@CORP.LOCAL", admincount=True)]), seen_at=SEEN)

    graph = nodes(conn)
    assert len(graph) == 2
    kinds, properties = graph[ADMINS]
    assert kinds == ["Group", "Base"]
    assert properties["name"] == "DOMAIN ADMINS@CORP.LOCAL"
    assert set(edges(conn)) == {(ALICE, "MemberOf", ADMINS)}


def test_an_end_kind_is_added_to_an_existing_node_without_touching_its_properties(conn: psycopg.Connection) -> None:
    store = GraphStore(conn)
    store.write(Batch(edges=[edge(ADMINS, ADEdge.GenericAll, ALICE)]), seen_at=SEEN)
    assert nodes(conn)[ALICE][0] == ["Base"]

    stats = store.write(
        Batch(edges=[edge(BOB, ADEdge.ForceChangePassword, ALICE, end_kind=ADNode.User)]), seen_at=SEEN_LATER
    )

    assert stats.placeholders == 1  # BOB; ALICE existed
    kinds, properties = nodes(conn)[ALICE]
    assert kinds == ["Base", "User"]
    assert primary_kind(kinds) == ADNode.User
    # The placeholder's lastseen is its own; being named by an edge does not refresh it.
    assert properties == {"objectid": ALICE, "lastseen": "2026-03-01T12:30:00Z"}


def test_an_end_without_kind_adds_no_kind_to_an_existing_node(conn: psycopg.Connection) -> None:
    store = GraphStore(conn)
    person = NodeRecord("PERSON-1", ("Person",), {"name": "ALICE"})
    store.write(Batch(nodes=[person]), seen_at=SEEN)
    store.write(Batch(edges=[edge("PERSON-2", "Knows", "PERSON-1")]), seen_at=SEEN)

    assert nodes(conn)["PERSON-1"][0] == ["Person"]


def collection() -> list[Batch]:
    """Two batches of a small domain; the second repeats an edge of the first with another property."""
    return [
        Batch(
            nodes=[user(ALICE, name="ALICE@CORP.LOCAL"), group(ADMINS, name="DOMAIN ADMINS@CORP.LOCAL")],
            edges=[
                edge(ALICE, ADEdge.MemberOf, ADMINS, ADNode.User, ADNode.Group, isacl=False),
                edge(ADMINS, ADEdge.GenericAll, ALICE, ADNode.Group, ADNode.User, isacl=True, isinherited=False),
                edge(WS1, ADEdge.HasSession, ALICE, ADNode.Computer, ADNode.User),
            ],
        ),
        Batch(
            nodes=[NodeRecord(WS1, (ADNode.Computer, ADNode.Base), {"name": "WS1.CORP.LOCAL", "haslaps": True})],
            edges=[
                edge(ADMINS, ADEdge.AdminTo, WS1, ADNode.Group, ADNode.Computer),
                edge(ADMINS, ADEdge.GenericAll, ALICE, ADNode.Group, ADNode.User, inheritancehash="ABC"),
            ],
        ),
    ]


def test_ingesting_the_same_batches_twice_yields_the_same_graph(conn: psycopg.Connection) -> None:
    store = GraphStore(conn)
    first = WriteStats()
    for batch in collection():
        first += store.write(batch, seen_at=SEEN)
    graph, links = nodes(conn), edges(conn)

    again = WriteStats()
    for batch in collection():
        again += store.write(batch, seen_at=SEEN_LATER)

    assert (first.nodes, first.edges) == (again.nodes, again.edges) == (3, 5)
    assert again.placeholders == 0
    graph_again, links_again = nodes(conn), edges(conn)
    assert {oid: (kinds, without_lastseen(p)) for oid, (kinds, p) in graph_again.items()} == {
        oid: (kinds, without_lastseen(p)) for oid, (kinds, p) in graph.items()
    }
    assert {key: without_lastseen(p) for key, p in links_again.items()} == {
        key: without_lastseen(p) for key, p in links.items()
    }
    assert links_again[(ADMINS, "GenericAll", ALICE)] == {
        "isacl": True, "isinherited": False, "inheritancehash": "ABC", "lastseen": "2026-03-02T12:30:00Z"
    }  # fmt: skip
    assert {p["lastseen"] for _, p in graph_again.values()} == {"2026-03-02T12:30:00Z"}


def test_lastseen_is_an_rfc3339_utc_time_on_every_node_and_edge(conn: psycopg.Connection) -> None:
    paris = datetime(2026, 3, 1, 13, 30, 0, 250000, tzinfo=UTC).astimezone()
    for batch in collection():
        GraphStore(conn).write(batch, seen_at=paris)

    stamps = {p["lastseen"] for _, p in nodes(conn).values()} | {p["lastseen"] for p in edges(conn).values()}
    assert stamps == {"2026-03-01T13:30:00.250000Z"}


def test_seen_at_must_carry_a_time_zone(conn: psycopg.Connection) -> None:
    with pytest.raises(ValueError, match="timezone"):
        GraphStore(conn).write(Batch(nodes=[user(ALICE)]), seen_at=datetime(2026, 3, 1))


def test_deletions_remove_the_nodes_and_every_edge_touching_them(conn: psycopg.Connection) -> None:
    store = GraphStore(conn)
    for batch in collection():
        store.write(batch, seen_at=SEEN)

    stats = store.write(Batch(deletions=[ALICE.lower(), f"{DOMAIN}-404"]), seen_at=SEEN_LATER)

    assert stats.deleted == 1
    assert set(nodes(conn)) == {ADMINS, WS1}
    assert set(edges(conn)) == {(ADMINS, "AdminTo", WS1)}


def test_a_deleted_object_named_again_by_an_edge_comes_back_as_a_placeholder(conn: psycopg.Connection) -> None:
    store = GraphStore(conn)
    for batch in collection():
        store.write(batch, seen_at=SEEN)
    store.write(Batch(deletions=[ALICE]), seen_at=SEEN)

    store.write(Batch(edges=[edge(ADMINS, ADEdge.GenericAll, ALICE, end_kind=ADNode.User)]), seen_at=SEEN)

    assert nodes(conn)[ALICE] == (["User", "Base"], {"objectid": ALICE, "lastseen": "2026-03-01T12:30:00Z"})
    assert (ADMINS, "GenericAll", ALICE) in edges(conn)


def test_a_batchs_source_kinds_are_registered_in_its_transaction(conn: psycopg.Connection) -> None:
    def registered() -> list[str]:
        return [name for (name,) in conn.execute("SELECT name FROM source_kinds WHERE name LIKE 'Store%' ORDER BY id")]

    store = GraphStore(conn)
    conn.execute("DELETE FROM source_kinds WHERE name LIKE 'Store%'")
    conn.commit()
    with conn.transaction(force_rollback=True):
        store.write(Batch(nodes=[NodeRecord("REPO-1", ("Repository", "StoreHub"))], source_kinds=["StoreHub"]),
                    seen_at=SEEN)
        assert registered() == ["StoreHub"]
    assert registered() == [], "rolled back with the batch's graph rows"
    conn.execute("INSERT INTO source_kinds (name, active) VALUES ('StoreLab', false)")
    store.write(Batch(source_kinds=["StoreHub", "StoreLab"]), seen_at=SEEN)
    store.write(Batch(source_kinds=["StoreHub"]), seen_at=SEEN)
    assert registered() == ["StoreLab", "StoreHub"], "each name once"
    assert conn.execute("SELECT bool_and(active) FROM source_kinds WHERE name LIKE 'Store%'").fetchone() == (True,)
    conn.rollback()


def test_duplicate_records_and_edges_in_one_batch_are_merged(conn: psycopg.Connection) -> None:
    batch = Batch(
        nodes=[user(ALICE, name="ALICE@CORP.LOCAL"), NodeRecord(ALICE.lower(), (ADNode.Base,), {"enabled": True})],
        edges=[
            edge(WS1, ADEdge.HasSession, ALICE, ADNode.Computer, ADNode.User, source="sessions"),
            edge(WS1.lower(), ADEdge.HasSession, ALICE, ADNode.Computer, ADNode.User, privileged=True),
        ],
    )
    stats = GraphStore(conn).write(batch, seen_at=SEEN)

    assert (stats.nodes, stats.edges) == (1, 1)
    kinds, properties = nodes(conn)[ALICE]
    assert kinds == ["User", "Base"]
    assert without_lastseen(properties) == {"objectid": ALICE, "name": "ALICE@CORP.LOCAL", "enabled": True}
    assert without_lastseen(edges(conn)[(WS1, "HasSession", ALICE)]) == {"source": "sessions", "privileged": True}


def test_an_edge_repeated_in_the_next_batch_after_creating_its_end_is_merged(conn: psycopg.Connection) -> None:
    """The first batch creates the end node (its edges go straight into the table); the repeat must
    then be merged into that edge, not inserted a second time."""
    store = GraphStore(conn)
    store.write(Batch(edges=[edge(ALICE, ADEdge.MemberOf, ADMINS, ADNode.User, ADNode.Group, a=1)]), seen_at=SEEN)
    store.write(Batch(edges=[edge(ALICE, ADEdge.MemberOf, ADMINS, ADNode.User, ADNode.Group, b=2)]), seen_at=SEEN)

    assert {key: without_lastseen(p) for key, p in edges(conn).items()} == {
        (ALICE, "MemberOf", ADMINS): {"a": 1, "b": 2}
    }


def test_an_edge_restated_unchanged_is_left_alone_and_a_changed_one_is_merged(empty_graph: Database) -> None:
    """An OU file restates the containment its children's files already wrote: the stored row must not be
    rewritten, nor even locked (a row lock writes its page and the WAL), while new properties still merge."""
    first = Batch(nodes=[user(ALICE), group(ADMINS)],
                  edges=[edge(ALICE, ADEdge.MemberOf, ADMINS, ADNode.User, ADNode.Group, a=1)])
    with empty_graph.connect_raw() as conn:
        GraphStore(conn).write(first, seen_at=SEEN)
        conn.commit()

    def row(conn: psycopg.Connection) -> tuple[str, str, str]:
        found = conn.execute("SELECT ctid::text, xmax::text, properties::text FROM edge").fetchone()
        assert found is not None
        return found

    restated = Batch(edges=[edge(ALICE, ADEdge.MemberOf, ADMINS, ADNode.User, ADNode.Group, a=1)])
    changed = Batch(edges=[edge(ALICE, ADEdge.MemberOf, ADMINS, ADNode.User, ADNode.Group, b=2)])
    with empty_graph.connect_raw() as conn:
        before = row(conn)
        assert before[1] == "0"
        GraphStore(conn).write(restated, seen_at=SEEN)
        assert row(conn) == before
        GraphStore(conn).write(changed, seen_at=SEEN)
        assert row(conn)[0] != before[0]
        assert {key: without_lastseen(p) for key, p in edges(conn).items()} == {
            (ALICE, "MemberOf", ADMINS): {"a": 1, "b": 2}
        }


def test_an_edge_from_an_object_to_itself_is_kept(conn: psycopg.Connection) -> None:
    GraphStore(conn).write(Batch(nodes=[user(ALICE)], edges=[edge(ALICE, "WriteSPN", ALICE)]), seen_at=SEEN)

    assert set(edges(conn)) == {(ALICE, "WriteSPN", ALICE)}


def opengraph_people() -> Batch:
    return Batch(
        nodes=[
            NodeRecord("P-1", ("Person",), {"name": "alice"}),
            NodeRecord("P-2", ("Person",), {"name": "bob"}),
            NodeRecord("R-1", ("Robot",), {"name": "bob"}),
            NodeRecord("P-3", ("Person",), {"name": "carol"}),
            NodeRecord("P-4", ("Person",), {"name": "carol"}),
        ]
    )


def by_name(name: str, kind: str | None = None) -> EdgeEnd:
    return EdgeEnd(name, kind, MatchBy.NAME)


def test_ends_matched_by_name_resolve_to_the_one_node_of_that_name(conn: psycopg.Connection) -> None:
    store = GraphStore(conn)
    store.write(opengraph_people(), seen_at=SEEN)

    stats = store.write(
        Batch(
            edges=[
                EdgeRecord(by_name("alice"), by_name("bob", "Person"), "Knows"),
                EdgeRecord(by_name("alice"), by_name("bob", "Robot"), "Owns"),
                EdgeRecord(by_name("alice"), EdgeEnd("p-3"), "Knows"),
            ]
        ),
        seen_at=SEEN,
    )

    assert (stats.edges, stats.unresolved, stats.ambiguous) == (3, 0, 0)
    assert set(edges(conn)) == {("P-1", "Knows", "P-2"), ("P-1", "Owns", "R-1"), ("P-1", "Knows", "P-3")}


def test_an_end_matching_no_node_or_several_skips_the_edge_and_is_counted(conn: psycopg.Connection) -> None:
    store = GraphStore(conn)
    store.write(opengraph_people(), seen_at=SEEN)
    before = len(nodes(conn))

    stats = store.write(
        Batch(
            edges=[
                EdgeRecord(by_name("alice"), by_name("dave"), "Knows"),
                EdgeRecord(by_name("alice"), by_name("bob"), "Knows"),
                EdgeRecord(by_name("carol", "Person"), by_name("alice"), "Knows"),
                EdgeRecord(by_name("alice"), by_name("alice", "Robot"), "Knows"),
            ]
        ),
        seen_at=SEEN,
    )

    assert (stats.edges, stats.unresolved, stats.ambiguous) == (0, 2, 2)
    assert edges(conn) == {}
    # Nothing is guessed, and no placeholder is made for a name.
    assert len(nodes(conn)) == before


def test_a_name_can_match_a_node_written_in_the_same_batch(conn: psycopg.Connection) -> None:
    batch = opengraph_people()
    batch.edges = [EdgeRecord(by_name("alice"), by_name("bob", "Robot"), "Owns")]

    stats = GraphStore(conn).write(batch, seen_at=SEEN)

    assert stats.edges == 1
    assert set(edges(conn)) == {("P-1", "Owns", "R-1")}


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


def test_a_rolled_back_transaction_leaves_no_stale_kind_or_node_in_the_stores_caches(
    empty_graph: Database,
) -> None:
    with empty_graph.connect_raw() as conn:
        store = GraphStore(conn)
        store.write(
            Batch(nodes=[user(ALICE), NodeRecord(BOB, ("KindMadeInARolledBackTransaction",), {})]), seen_at=SEEN
        )
        conn.rollback()

        store.write(
            Batch(
                nodes=[NodeRecord(BOB, ("KindMadeInARolledBackTransaction",), {})],
                edges=[edge(BOB, "Knows", ALICE, end_kind=ADNode.User)],
            ),
            seen_at=SEEN,
        )
        conn.commit()
        graph = nodes(conn)
        assert graph[BOB][0] == ["KindMadeInARolledBackTransaction"]
        assert graph[ALICE] == (["User", "Base"], {"objectid": ALICE, "lastseen": "2026-03-01T12:30:00Z"})
        assert set(edges(conn)) == {(BOB, "Knows", ALICE)}


def test_an_autocommit_connection_commits_each_batch(empty_graph: Database) -> None:
    with empty_graph.connect_raw(autocommit=True) as conn:
        GraphStore(conn).write(collection()[0], seen_at=SEEN)
    with empty_graph.connect_raw() as other:
        assert set(nodes(other)) == {ALICE, ADMINS, WS1}
        assert len(edges(other)) == 3


def test_write_all_gives_the_same_graph_as_writing_batch_by_batch(conn: psycopg.Connection) -> None:
    seen: list[WriteStats] = []

    total = GraphStore(conn).write_all(iter(collection()), seen_at=SEEN, on_batch=seen.append)

    assert len(seen) == 2
    assert (total.nodes, total.edges, total.placeholders) == (3, 5, 1)
    graph, links = nodes(conn), edges(conn)
    conn.rollback()
    for batch in collection():
        GraphStore(conn).write(batch, seen_at=SEEN)
    assert (nodes(conn), edges(conn)) == (graph, links)


def test_write_all_raises_the_readers_error_and_closes_the_reader_when_writing_fails(
    conn: psycopg.Connection,
) -> None:
    closed = threading.Event()

    def failing_reader() -> Iterator[Batch]:
        try:
            yield collection()[0]
            raise ValueError("not a SharpHound file")
        finally:
            closed.set()

    with pytest.raises(ValueError, match="not a SharpHound file"):
        GraphStore(conn).write_all(failing_reader(), seen_at=SEEN)
    assert closed.is_set()

    def endless_reader() -> Iterator[Batch]:
        try:
            while True:
                yield collection()[0]
        finally:
            closed.set()

    def stop(stats: WriteStats) -> None:
        raise KeyboardInterrupt

    with pytest.raises(TypeError):
        GraphStore(conn).write_all(42, seen_at=SEEN)  # type: ignore[arg-type]

    closed.clear()
    with pytest.raises(KeyboardInterrupt):
        GraphStore(conn).write_all(endless_reader(), seen_at=SEEN, on_batch=stop)
    assert closed.is_set()


def test_two_processes_writing_the_same_objects_at_once_neither_deadlock_nor_duplicate(
    empty_graph: Database,
) -> None:
    """Each writer's task is one transaction of many batches over the same objects, in opposite orders
    (the pattern that deadlocks without the writer lock)."""
    objectids = [f"{DOMAIN}-{3000 + i}" for i in range(200)]

    def task(order: list[str], errors: list[BaseException]) -> None:
        try:
            with empty_graph.connect_raw() as conn:
                store = GraphStore(conn)
                for start in range(0, len(order), 20):
                    chunk = order[start : start + 20]
                    batch = Batch(
                        nodes=[user(objectid, name=objectid) for objectid in chunk],
                        edges=[edge(objectid, ADEdge.MemberOf, ADMINS, end_kind=ADNode.Group) for objectid in chunk],
                    )
                    store.write(batch, seen_at=SEEN)
                conn.commit()
        except BaseException as error:  # reported to the test thread
            errors.append(error)

    errors: list[BaseException] = []
    writers = [threading.Thread(target=task, args=(order, errors)) for order in (objectids, objectids[::-1])]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(timeout=60)

    assert errors == []
    with empty_graph.connect_raw() as conn:
        assert len(nodes(conn)) == 201
        assert len(edges(conn)) == 200


def test_a_real_collection_written_batch_by_batch_or_with_read_ahead_gives_the_same_graph(
    empty_graph: Database,
) -> None:
    """Both SharpHound v6 sets from ../shared/data, file after file (the testlab's `deleted` file
    included), in small batches so records of one object span several."""
    paths = sorted((DATA / "sharphound" / "v6-adcs-lab").glob("*.json")) + sorted(
        (DATA / "sharphound" / "v6-testlab").glob("*.json")
    )
    assert len(paths) > 20

    def ingest(read_ahead: bool) -> tuple[dict[str, Any], dict[tuple[str, str, str], dict[str, Any]]]:
        with empty_graph.connect_raw() as conn:
            conn.execute("TRUNCATE edge, node RESTART IDENTITY CASCADE")
            for path in paths:
                store = GraphStore(conn)
                document = IngestFile(name=path.name, parent_name=None, open=partial(path.open, "rb"))
                batches = read_file(document, batch_size=50)
                if read_ahead:
                    store.write_all(batches, seen_at=SEEN)
                else:
                    for batch in batches:
                        store.write(batch, seen_at=SEEN)
                conn.commit()
            return nodes(conn), edges(conn)

    graph, links = ingest(read_ahead=False)
    assert len(graph) > 300 and len(links) > 1000
    assert ingest(read_ahead=True) == (graph, links)


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


def test_batches_of_one_transaction_each_write_only_their_own_records(conn: psycopg.Connection) -> None:
    """The staging tables are emptied between the batches of a transaction: a node deleted after the first batch
    stays deleted when the next batch is written, and an edge changed meanwhile keeps its change."""
    store = GraphStore(conn)
    store.write(Batch(nodes=[user(ALICE), group(ADMINS)],
                      edges=[edge(ALICE, ADEdge.MemberOf, ADMINS, ADNode.User, ADNode.Group, a=1)]), seen_at=SEEN)
    store.write(Batch(edges=[edge(ALICE, ADEdge.MemberOf, ADMINS, ADNode.User, ADNode.Group, a=2)]), seen_at=SEEN)
    conn.execute("UPDATE edge SET properties = properties || '{\"a\": 3}'")
    store.write(Batch(deletions=[ALICE]), seen_at=SEEN)

    store.write(Batch(nodes=[user(BOB)], edges=[edge(BOB, ADEdge.MemberOf, ADMINS, ADNode.User, ADNode.Group)]),
                seen_at=SEEN)

    assert set(nodes(conn)) == {ADMINS, BOB}
    assert set(edges(conn)) == {(BOB, "MemberOf", ADMINS)}


def test_an_edge_upserted_again_in_the_same_transaction_keeps_a_change_made_in_between(
    conn: psycopg.Connection,
) -> None:
    store = GraphStore(conn)
    store.write(Batch(nodes=[user(ALICE), user(BOB), group(ADMINS)]), seen_at=SEEN)
    alice, bob, admins = (conn.execute("SELECT id FROM node WHERE properties ->> 'objectid' = %s", (objectid,))
                          .fetchone()[0] for objectid in (ALICE, BOB, ADMINS))
    member_of = store.kind_ids([ADEdge.MemberOf])[0]
    upsert_edges(conn, [(alice, admins, member_of, '{"a": 1}')])
    conn.execute("UPDATE edge SET properties = '{\"a\": 3}'")

    upsert_edges(conn, [(bob, admins, member_of, '{"b": 1}')])

    assert {key: value for key, value in edges(conn).items()} == {
        (ALICE, "MemberOf", ADMINS): {"a": 3}, (BOB, "MemberOf", ADMINS): {"b": 1}
    }
