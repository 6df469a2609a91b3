"""GET /api/v2/nodes/{node_id} and GET /api/v2/relationships/{relationship_id}: look-ups by the ids the graph
gives nodes and edges (BloodHound 9.x)."""

from __future__ import annotations

import httpx
import pytest

from houndgraph.db import Database
from tests.conftest import LiveServer
from tests.factories import account
from tests.user.helpers import assert_error


def kind_ids(database: Database) -> dict[str, int]:
    with database.connect_raw() as conn:
        return dict(conn.execute("SELECT name, id FROM kind").fetchall())


def test_a_node_by_its_graph_id(admin: httpx.Client, graph: dict[str, int], empty_graph: Database) -> None:
    response = admin.get(f"/api/v2/nodes/{graph['alice']}")
    assert response.status_code == 200, response.text
    node = response.json()["data"]
    ids = kind_ids(empty_graph)
    assert node["node_id"] == graph["alice"]
    assert node["kinds"] == [{"node_kind_id": ids["Base"], "name": "Base"},
                             {"node_kind_id": ids["User"], "name": "User"}]
    assert node["properties"]["name"] == "ALICE@LAB.LOCAL" and node["properties"]["hasspn"] is True


def test_a_relationship_by_its_graph_id(admin: httpx.Client, graph: dict[str, int], empty_graph: Database) -> None:
    with empty_graph.connect_raw() as conn:
        edge_id, = conn.execute("SELECT e.id FROM edge e JOIN kind k ON k.id = e.kind_id WHERE k.name = 'GenericAll'"
                                ).fetchone()
    response = admin.get(f"/api/v2/relationships/{edge_id}")
    assert response.status_code == 200, response.text
    assert response.json()["data"] == {
        "relationship_id": edge_id, "source_node_id": graph["carol"], "target_node_id": graph["bob"],
        "kind": {"relationship_kind_id": kind_ids(empty_graph)["GenericAll"], "name": "GenericAll"},
        "properties": {"isacl": True}}


@pytest.mark.parametrize("raw", ["abc", "1.5", "9223372036854775808", "0x10"])
def test_malformed_ids_are_400(admin: httpx.Client, raw: str) -> None:
    assert_error(admin.get(f"/api/v2/nodes/{raw}"), 400, "node id is malformed")
    assert_error(admin.get(f"/api/v2/relationships/{raw}"), 400, "relationship id is malformed")


def test_unknown_ids_are_404(admin: httpx.Client, empty_graph: Database) -> None:
    assert_error(admin.get("/api/v2/nodes/9223372036854775807"), 404, "node not found")
    assert_error(admin.get("/api/v2/relationships/-1"), 404, "relationship not found")


def test_graph_read_is_needed(live_server: LiveServer, database: Database) -> None:
    with account(live_server, database, "Upload-Only") as uploader:
        assert_error(uploader.http.get("/api/v2/nodes/1"), 403, "not authorized")
        assert_error(uploader.http.get("/api/v2/relationships/1"), 403, "not authorized")
