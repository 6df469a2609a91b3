"""GET /api/v2/spec and /api/v2/spec/openapi.yaml: the server's own OpenAPI document, without credentials."""

from __future__ import annotations

import httpx
import yaml

from tests.conftest import LiveServer


def test_the_openapi_document_as_yaml(live_server: LiveServer) -> None:
    with httpx.Client(base_url=live_server.base_url, timeout=60) as anonymous:
        response = anonymous.get("/api/v2/spec/openapi.yaml")
        assert response.status_code == 200
        assert response.headers["Content-Type"].startswith("application/yaml")
        document = yaml.safe_load(response.text)
        assert document == anonymous.get("/api/openapi.json").json()
    assert "/api/v2/graph-search" in document["paths"] and document["openapi"].startswith("3.")


def test_the_openapi_document_as_json_where_the_reference_serves_it(live_server: LiveServer) -> None:
    # The reference's UI loads its API Explorer from here, before anyone has signed in.
    with httpx.Client(base_url=live_server.base_url, timeout=60) as anonymous:
        response = anonymous.get("/api/v2/spec")
        assert response.status_code == 200 and response.headers["Content-Type"].startswith("application/json")
        document = response.json()
        assert document == anonymous.get("/api/openapi.json").json()
    assert {"/api/v2/spec", "/api/v2/graphs/kinds", "/api/v2/graphs/source-kinds"} <= set(document["paths"])
