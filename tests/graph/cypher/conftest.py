"""A small hand-drawn AD graph, inserted with plain SQL, and a helper that runs Cypher over it.

    alice -MemberOf-> IT -MemberOf-> DOMAIN ADMINS -AdminTo-> DC01
    bob -MemberOf-> HELPDESK -AdminTo-> WS01 -HasSession-> alice
    carol -GenericAll-> bob          DOMAIN ADMINS -MemberOf-> IT (a cycle)
    WS01 -HasSession-> bob           DC01 -MemberOf-> DOMAIN CONTROLLERS
"""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

from houndgraph.db import Database
from houndgraph.graph.cypher.execute import Result, run_query

NODES: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "alice": (("Base", "User"), {"objectid": "S-1-5-21-1-1101", "name": "ALICE@LAB.LOCAL", "enabled": True,
                                 "hasspn": True, "pwdlastset": 1600000000, "admincount": True}),
    "bob": (("Base", "User"), {"objectid": "S-1-5-21-1-1102", "name": "BOB@LAB.LOCAL", "enabled": True,
                               "dontreqpreauth": True, "pwdlastset": 1700000000}),
    "carol": (("Base", "User"), {"objectid": "S-1-5-21-1-1103", "name": "CAROL@LAB.LOCAL", "enabled": False,
                                 "hasspn": True}),
    "da": (("Base", "Group"), {"objectid": "S-1-5-21-1-512", "name": "DOMAIN ADMINS@LAB.LOCAL",
                               "system_tags": "admin_tier_0"}),
    "it": (("Base", "Group"), {"objectid": "S-1-5-21-1-2001", "name": "IT@LAB.LOCAL"}),
    "helpdesk": (("Base", "Group"), {"objectid": "S-1-5-21-1-2002", "name": "HELPDESK@LAB.LOCAL"}),
    "dcs": (("Base", "Group"), {"objectid": "S-1-5-21-1-516", "name": "DOMAIN CONTROLLERS@LAB.LOCAL"}),
    "dc01": (("Base", "Computer"), {"objectid": "S-1-5-21-1-1000", "name": "DC01.LAB.LOCAL",
                                    "unconstraineddelegation": True, "operatingsystem": "Windows Server 2019"}),
    "ws01": (("Base", "Computer"), {"objectid": "S-1-5-21-1-1104", "name": "WS01.LAB.LOCAL",
                                    "operatingsystem": "Windows 10 Pro"}),
    "domain": (("Base", "Domain"), {"objectid": "S-1-5-21-1", "name": "LAB.LOCAL", "functionallevel": "2016"}),
}
EDGES: list[tuple[str, str, str, dict[str, Any]]] = [
    ("alice", "MemberOf", "it", {}),
    ("it", "MemberOf", "da", {}),
    ("da", "MemberOf", "it", {}),
    ("da", "AdminTo", "dc01", {}),
    ("bob", "MemberOf", "helpdesk", {}),
    ("helpdesk", "AdminTo", "ws01", {}),
    ("ws01", "HasSession", "alice", {}),
    ("ws01", "HasSession", "bob", {}),
    ("carol", "GenericAll", "bob", {"isacl": True}),
    ("dc01", "MemberOf", "dcs", {}),
    ("domain", "Contains", "dc01", {}),
]


@pytest.fixture
def graph(empty_graph: Database) -> dict[str, int]:
    """The graph above; returns the node ids by short name."""
    ids: dict[str, int] = {}
    with empty_graph.connect_raw(autocommit=True) as conn:
        kinds = {k for labels, _ in NODES.values() for k in labels} | {kind for _, kind, _, _ in EDGES}
        for kind in sorted(kinds):
            conn.execute("INSERT INTO kind (name) VALUES (%s) ON CONFLICT (name) DO NOTHING", (kind,))
        for name, (labels, props) in NODES.items():
            row = conn.execute(
                "INSERT INTO node (kind_ids, properties) SELECT array_agg(id ORDER BY array_position(%s::text[], name))"
                "::smallint[], %s FROM kind WHERE name = ANY(%s::text[]) RETURNING id",
                (list(labels), Jsonb(props), list(labels)),
            ).fetchone()
            assert row is not None
            ids[name] = row[0]
        for start, kind, end, props in EDGES:
            conn.execute(
                "INSERT INTO edge (start_id, end_id, kind_id, properties) "
                "SELECT %s, %s, id, %s FROM kind WHERE name = %s",
                (ids[start], ids[end], Jsonb(props), kind),
            )
    return ids


def cypher(database: Database, text: str, **options: Any) -> Result:
    async def go() -> Result:
        async with await psycopg.AsyncConnection.connect(database.conninfo) as conn:
            return await run_query(conn, text, **options)

    return asyncio.run(go())


@pytest.fixture
def run(empty_graph: Database, graph: dict[str, int]) -> Any:
    """run(query) -> Result over the small graph."""
    return lambda text, **options: cypher(empty_graph, text, **options)
