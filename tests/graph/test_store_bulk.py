"""The graph store while a bulk job has deferred the inbound edge index (`graph.store.bulk`): the writer cannot ask
which edges enter a node, and must still tell the edges it may copy from those it must merge."""

from __future__ import annotations

from typing import Any

from houndgraph.db import Database
from houndgraph.graph.kinds import ADEdge, ADNode
from houndgraph.graph.records import Batch
from houndgraph.graph.store import GraphStore, bulk
from tests.graph.store_helpers import ADMINS, ALICE, BOB, DOMAIN, SEEN, edge, edges, group, user, without_lastseen

OPERATORS = f"{DOMAIN}-548"


def test_without_the_inbound_edge_index_restated_edges_merge_and_new_ones_between_stored_nodes_are_written(
        empty_graph: Database) -> None:
    with empty_graph.connect_raw() as conn:
        GraphStore(conn).write(Batch(nodes=[user(ALICE), user(BOB), group(ADMINS), group(OPERATORS)],
                                     edges=[edge(ALICE, ADEdge.MemberOf, ADMINS, a=1)]), seen_at=SEEN)
        conn.commit()
        try:
            assert "edge_end_kind_start_idx" in bulk.defer(conn)
            # Every end is stored and Alice has a MemberOf edge already: each edge is in doubt.
            GraphStore(conn).write(Batch(edges=[edge(ALICE, ADEdge.MemberOf, ADMINS, ADNode.User, ADNode.Group, b=2),
                                                edge(ALICE, ADEdge.MemberOf, OPERATORS, ADNode.User, ADNode.Group),
                                                edge(BOB, ADEdge.MemberOf, ADMINS, ADNode.User, ADNode.Group)]),
                                   seen_at=SEEN)
            conn.commit()
            written: dict[tuple[str, str, str], dict[str, Any]] = {
                key: without_lastseen(properties) for key, properties in edges(conn).items()}
        finally:
            conn.rollback()
            bulk.rebuild(conn)
    assert written == {(ALICE, "MemberOf", ADMINS): {"a": 1, "b": 2}, (ALICE, "MemberOf", OPERATORS): {},
                       (BOB, "MemberOf", ADMINS): {}}
