"""The graph store against the real PostgreSQL: what an ingest leaves in the node and edge tables (records,
placeholders, kinds, lastseen, deletions, merged duplicates, ends matched by name). The text COPY carries is in
test_store_copy.py, transactions and concurrent writers in test_store_transactions.py."""

from __future__ import annotations

from datetime import UTC, datetime

import psycopg
import pytest

from houndgraph.db import Database
from houndgraph.graph.kinds import ADEdge, ADNode, AZNode, primary_kind
from houndgraph.graph.records import Batch, EdgeEnd, EdgeRecord, MatchBy, NodeRecord
from houndgraph.graph.store import GraphStore, WriteStats
from tests.graph.store_helpers import (
    ADMINS,
    ALICE,
    BOB,
    DOMAIN,
    SEEN,
    SEEN_LATER,
    WS1,
    collection,
    edge,
    edges,
    group,
    nodes,
    user,
    without_lastseen,
)


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
