"""GET /api/v2/graphs/kinds (the Cypher editor's completion) and GET /api/v2/graphs/source-kinds (the ids
`POST /api/v2/clear-database` deletes by)."""

from __future__ import annotations

import httpx

from houndgraph.db import Database
from tests.conftest import LiveServer
from tests.factories import account
from tests.user.helpers import assert_error


def test_kinds_lists_every_node_and_edge_kind_by_name(admin: httpx.Client, graph: dict[str, int]) -> None:
    response = admin.get("/api/v2/graphs/kinds")
    assert response.status_code == 200, response.text
    kinds = response.json()["data"]["kinds"]
    assert kinds == sorted(kinds)
    assert {"User", "Group", "MemberOf"} <= set(kinds)


def test_source_kinds_are_the_builtin_ones_then_sourceless(admin: httpx.Client, empty_graph: Database) -> None:
    with empty_graph.connect_raw(autocommit=True) as conn:
        conn.execute("INSERT INTO source_kinds (name, active) VALUES ('GithubBase', true) ON CONFLICT DO NOTHING")
    response = admin.get("/api/v2/graphs/source-kinds")
    assert response.status_code == 200, response.text
    kinds = response.json()["data"]["kinds"]
    assert kinds[:2] == [{"id": 1, "name": "Base"}, {"id": 2, "name": "AZBase"}]
    assert kinds[-1] == {"id": 0, "name": "Sourceless"}
    github = next(kind for kind in kinds if kind["name"] == "GithubBase")
    # The listed id is what clear-database takes.
    assert admin.post("/api/v2/clear-database", json={"deleteSourceKinds": [github["id"]]}).status_code == 204


def test_kinds_need_graph_read(live_server: LiveServer, database: Database) -> None:
    with account(live_server, database, "Upload-Only") as uploader:
        assert_error(uploader.http.get("/api/v2/graphs/kinds"), 403, "not authorized")
        assert_error(uploader.http.get("/api/v2/graphs/source-kinds"), 403, "not authorized")
