"""What the graph store's tests share: the object ids of a small domain, records of it to write, and the node
and edge tables read back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg

from houndgraph.graph.kinds import ADEdge, ADNode
from houndgraph.graph.records import Batch, EdgeEnd, EdgeRecord, NodeRecord

SEEN = datetime(2026, 3, 1, 12, 30, tzinfo=UTC)
SEEN_LATER = SEEN + timedelta(days=1)
DOMAIN = "S-1-5-21-1-2-3"
ALICE = f"{DOMAIN}-1104"
BOB = f"{DOMAIN}-1105"
ADMINS = f"{DOMAIN}-512"
WS1 = f"{DOMAIN}-2001"


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
