"""The graph store over transactions: a rollback leaves nothing stale in its caches, an autocommit connection
commits each batch, `write_all` reads ahead and gives the graph batch-by-batch writing gives, two writers at once
neither deadlock nor duplicate, and the batches of one transaction each write only their own records."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from functools import partial
from typing import Any

import psycopg
import pytest

from houndgraph.db import Database
from houndgraph.graph.kinds import ADEdge, ADNode
from houndgraph.graph.records import Batch, NodeRecord
from houndgraph.graph.store import GraphStore, WriteStats
from houndgraph.graph.store.edges import upsert_edges
from houndgraph.ingest import IngestFile, read_file
from tests.conftest import DATA
from tests.graph.store_helpers import (
    ADMINS,
    ALICE,
    BOB,
    DOMAIN,
    SEEN,
    WS1,
    collection,
    edge,
    edges,
    group,
    nodes,
    user,
)


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
