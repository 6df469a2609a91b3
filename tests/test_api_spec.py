"""GET /api/v2/spec/openapi.yaml: the server's own OpenAPI document, as YAML, without credentials."""

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
