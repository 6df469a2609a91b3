"""Privilege zone tests: zone tables back to their migrated defaults and an empty graph for each test;
`analyse()` runs the analysis the API requested, on this process's own datapipe tick."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest

from houndgraph.db import Database
from houndgraph.graph.records import Batch, EdgeEnd, EdgeRecord, NodeRecord
from houndgraph.graph.store import GraphStore
from houndgraph.settings import Settings
from houndgraph.worker.loop import analyse as run_analysis_hook
from tests.analysis.graphs import SEEN
from tests.datapipe.helpers import paused_datapipe, private_datapipe

TAGS = "/api/v2/asset-group-tags"
RESET = """
DELETE FROM asset_group_tags WHERE name NOT IN ('Tier Zero', 'Owned') OR deleted_at IS NOT NULL;
DELETE FROM asset_group_tag_selectors WHERE NOT is_default;
DELETE FROM asset_group_tag_selector_nodes;
DELETE FROM asset_group_history;
UPDATE asset_group_tags SET description = name, require_certify = CASE WHEN type = 1 THEN false END,
    glyph = NULL, position = CASE WHEN type = 1 THEN 1 END;
UPDATE asset_group_tag_selectors SET auto_certify = 0,
    disabled_at = CASE WHEN allow_disable THEN coalesce(disabled_at, now()) END,
    disabled_by = CASE WHEN allow_disable THEN 'SYSTEM' END;
UPDATE datapipe_status SET analysis_requested = false
"""


def _reset(database: Database) -> None:
    with database.connect_raw(autocommit=True) as conn:
        for statement in RESET.split(";"):
            conn.execute(statement)


@pytest.fixture
def zones(empty_graph: Database) -> Iterator[Database]:
    """Before and after: other tests' analysis runs must not meet the zones a test made."""
    _reset(empty_graph)
    yield empty_graph
    _reset(empty_graph)


Analyse = Callable[[], bool]


@pytest.fixture
def analyse(zones: Database, server_settings: Settings) -> Iterator[Analyse]:
    """Run the analysis if one was requested (True), as the service's loop would at its next tick. The
    service's own loop is paused for the test, so the test decides when analysis runs."""
    with paused_datapipe(zones) as conn:
        pipe = private_datapipe(server_settings, zones, conn, analysis=run_analysis_hook)

        def run() -> bool:
            wanted = conn.execute("SELECT analysis_requested FROM datapipe_status WHERE id = 1").fetchone()
            pipe.tick()
            return bool(wanted and wanted[0])

        yield run


def load_graph(database: Database, nodes: list[tuple[str, str, dict]], edges: list[tuple[str, str, str]]) -> None:
    """Nodes `(objectid, kind, properties)` (AD: Base kind added) and edges `(start, kind, end)`, committed."""
    batch = Batch(nodes=[NodeRecord(oid, (kind, "AZBase" if kind.startswith("AZ") else "Base"),
                                    {"name": oid, **props}) for oid, kind, props in nodes],
                  edges=[EdgeRecord(EdgeEnd(start), EdgeEnd(end), kind, {}) for start, kind, end in edges])
    with database.connect_raw() as conn:
        GraphStore(conn).write(batch, seen_at=SEEN)
        conn.commit()


def tag_id(http: httpx.Client, name: str) -> int:
    tags = http.get(TAGS).json()["data"]["tags"]
    return next(tag["id"] for tag in tags if tag["name"] == name)


def graph_id(database: Database, objectid: str) -> int:
    with database.connect_raw() as conn:
        row = conn.execute("SELECT id FROM node WHERE properties->>'objectid' = %s", (objectid,)).fetchone()
    assert row is not None
    return int(row[0])


def tagged(database: Database, kind: str) -> set[str]:
    with database.connect_raw() as conn:
        rows = conn.execute("SELECT n.properties->>'objectid' FROM node n JOIN kind k ON k.id = ANY(n.kind_ids) "
                            "WHERE k.name = %s", (kind,)).fetchall()
    return {row[0] for row in rows}


D = "S-1-5-21-8"


@pytest.fixture
def domain(zones: Database, admin: httpx.Client, analyse: Analyse) -> Database:
    """A domain: Domain Admins with a user and a nested group with another user, an OU holding a computer."""
    load_graph(zones, [(D, "Domain", {"domainsid": D}), (f"{D}-512", "Group", {"domainsid": D}),
                       (f"{D}-1100", "User", {"domainsid": D, "name": "ALICE@D"}),
                       (f"{D}-1200", "Group", {"domainsid": D, "name": "NESTED@D"}),
                       (f"{D}-1101", "User", {"domainsid": D, "name": "BOB@D"}),
                       ("OU-1", "OU", {"domainsid": D, "name": "SERVERS@D"}),
                       (f"{D}-1400", "Computer", {"domainsid": D, "name": "PC@D"})],
               [(f"{D}-1100", "MemberOf", f"{D}-512"), (f"{D}-1200", "MemberOf", f"{D}-512"),
                (f"{D}-1101", "MemberOf", f"{D}-1200"), (D, "Contains", "OU-1"), ("OU-1", "Contains", f"{D}-1400")])
    admin.put("/api/v2/analysis")
    assert analyse()
    return zones
