"""The server's own OpenAPI document: served without credentials as YAML (GET /api/v2/spec/openapi.yaml) and as
JSON (GET /api/v2/spec), and describing what every operation answers."""

from __future__ import annotations

from typing import Any

import httpx
import yaml

from houndgraph.routing import HoundRoute
from tests.conftest import LiveServer
from tests.openapi import assert_matches_own_document


def test_the_openapi_document_as_yaml(live_server: LiveServer) -> None:
    with httpx.Client(base_url=live_server.base_url, timeout=60) as anonymous:
        response = anonymous.get("/api/v2/spec/openapi.yaml")
        assert response.status_code == 200
        assert response.headers["Content-Type"].startswith("application/yaml")
        document = yaml.safe_load(response.text)
        assert document == anonymous.get("/api/openapi.json").json()
    assert "/api/v2/graph-search" in document["paths"] and document["openapi"].startswith("3.")


def _untyped_answers(operation: dict[str, Any]) -> list[str]:
    """The operation's success statuses that leave their body undescribed: one with a media type but an empty
    schema (what FastAPI writes for a handler returning a bare Response), or none at all. A success declared
    without content is a body-less answer (204, the reference's empty 200s and 202s, a redirect)."""
    successes = {status: response for status, response in operation["responses"].items()
                 if status[0] in "23"}
    if not successes:
        return ["no success response"]
    return [f"{status} {media}" for status, response in successes.items()
            for media, content in response.get("content", {}).items() if not content.get("schema")]


def test_the_document_describes_every_success_answer(live_server: LiveServer) -> None:
    """A generated client or a response validator learns what each operation answers: every operation describes
    its success bodies (the Cypher, path and search answers and the entity panels
    included), every JSON success body has a schema, and failures carry the reference's error body rather
    than FastAPI's 422 (which the service never sends)."""
    with httpx.Client(base_url=live_server.base_url, timeout=60) as anonymous:
        document = anonymous.get("/api/openapi.json").json()
    operations = {f"{method.upper()} {path}": operation for path, methods in document["paths"].items()
                  for method, operation in methods.items()}
    untyped = {label: gaps for label, operation in operations.items() if (gaps := _untyped_answers(operation))}
    # Every one: a download declares its media type (the posture report's HTML, the SAML metadata's XML were left
    # as JSON of any shape, and the signing certificate was declared as SAML metadata).
    assert not untyped, f"{len(untyped)} of {len(operations)} undescribed: {sorted(untyped.items())[:20]}"
    certificate = operations["GET /api/v2/sso-providers/{sso_provider_id}/signing-certificate"]
    assert list(certificate["responses"]["200"]["content"]) == ["text/plain"]
    for label in ("POST /api/v2/graphs/cypher", "GET /api/v2/graphs/shortest-path", "GET /api/v2/search",
                  "GET /api/v2/users/{object_id}", "GET /api/v2/users/{object_id}/sessions"):
        schema = operations[label]["responses"]["200"]["content"]["application/json"]["schema"]
        assert schema, f"{label} has no schema for its answer"
    for label, operation in operations.items():
        assert "422" not in operation["responses"], f"{label} declares a 422"
        assert operation["responses"]["4XX"]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/ErrorBody"}, label


HOT_ROUTES = {("POST", "/api/v2/graphs/cypher"), ("GET", "/api/v2/graphs/shortest-path"), ("GET", "/api/v2/search"),
              ("GET", "/api/v2/graph-search"), ("GET", "/api/v2/graphs/relay-targets"),
              ("GET", "/api/v2/users/{object_id}"), ("GET", "/api/v2/groups/{object_id}/members")}


def test_hand_rendered_answers_are_described_but_never_revalidated(live_server: LiveServer) -> None:
    """The graph answers are rendered by hand for speed: their schemas are documentation (FastAPI's
    `responses`), not a response model that would validate and re-serialize every answer."""
    routes = {(method, route.path): route for route in live_server.app.routes if isinstance(route, HoundRoute)
              for method in route.methods}
    for key in HOT_ROUTES:
        route = routes[key]
        assert route.response_model is None, f"{key} validates its answers against a response model"
        assert route.responses[route.status_code]["model"] is not None, f"{key} does not describe its answer"
def test_the_openapi_document_as_json_where_the_reference_serves_it(live_server: LiveServer) -> None:
    # The reference's UI loads its API Explorer from here, before anyone has signed in.
    with httpx.Client(base_url=live_server.base_url, timeout=60) as anonymous:
        response = anonymous.get("/api/v2/spec")
        assert response.status_code == 200 and response.headers["Content-Type"].startswith("application/json")
        document = response.json()
        assert document == anonymous.get("/api/openapi.json").json()
    assert {"/api/v2/spec", "/api/v2/graphs/kinds", "/api/v2/graphs/source-kinds"} <= set(document["paths"])


def test_the_spec_and_acl_inheritance_describe_their_answers(live_server: LiveServer) -> None:
    # Both wrote bare responses the document left untyped; a client generated from it now knows their bodies.
    with httpx.Client(base_url=live_server.base_url, timeout=60) as anonymous:
        spec = anonymous.get("/api/v2/spec")
        document = spec.json()
        for path in ("/api/v2/spec", "/api/v2/graphs/acl-inheritance"):
            schema = document["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
            assert schema.get("$ref"), f"{path} does not describe its answer: {schema}"
        assert_matches_own_document(anonymous, spec, "/api/v2/spec")
