"""Walks the route table: no route is reachable without authentication by accident."""

import re

import httpx

from houndgraph.api import ROUTES
from houndgraph.app import create_app
from houndgraph.routing import PUBLIC, HoundRoute
from tests.conftest import LiveServer

# The only routes anyone may call: logging in (by password or SSO, the providers listed as the reference
# lists them), reading the version and the spec, and the health check load balancers poll (issue #11).
EXPECTED_PUBLIC = {("POST", "/api/v2/login"), ("GET", "/api/version"), ("GET", "/api/v2/spec"),
                   ("GET", "/api/v2/spec/openapi.yaml"),
                   ("GET", "/api/v2/health"), ("GET", "/api/v2/sso-providers"),
                   ("GET", "/api/v2/saml/sso"), ("GET", "/api/v2/login/saml/{slug}"),
                   ("GET", "/api/v1/login/saml/{slug}"), ("POST", "/api/v1/login/saml/{slug}/acs")}


def _concrete(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "1", path)


def test_only_login_and_version_are_public() -> None:
    public = {(route.method, route.path) for route in ROUTES if route.permission is PUBLIC}
    assert public <= EXPECTED_PUBLIC | {(m, p) for m, p in public if p.startswith("/api/v2/sso/")}


def test_every_protected_route_refuses_an_anonymous_caller(live_server: LiveServer) -> None:
    routes = [r for r in live_server.app.routes if isinstance(r, HoundRoute) and r.permission is not PUBLIC]
    assert routes, "the route table is empty"
    with httpx.Client(base_url=live_server.base_url) as client:
        for route in routes:
            for method in route.methods:
                response = client.request(method, _concrete(route.path), json={})
                assert response.status_code == 401, f"{method} {route.path} answered {response.status_code}"
                assert response.json()["errors"][0]["message"] == "not authenticated"


def test_every_api_route_is_declared_in_the_table(live_server: LiveServer) -> None:
    declared = {(route.method, route.path) for route in ROUTES}
    for route in live_server.app.routes:
        if getattr(route, "path", "").startswith("/api/v2"):
            assert isinstance(route, HoundRoute)
            for method in route.methods:
                assert (method, route.path) in declared


def test_apps_of_one_process_share_the_routes_built_from_the_table(live_server: LiveServer) -> None:
    # FastAPI's analysis of the endpoints runs once per process (houndgraph.routing.register_routes); the routes
    # keep no app of their own, so a second app answers through its own state.
    second = create_app(live_server.settings.model_copy(update={"port": 1}), live_server.app.state.database)
    first_routes = [route for route in live_server.app.routes if isinstance(route, HoundRoute)]
    second_routes = [route for route in second.routes if isinstance(route, HoundRoute)]
    assert len(first_routes) == len(ROUTES)
    assert all(a is b for a, b in zip(first_routes, second_routes, strict=True))
    assert second.openapi() == live_server.app.openapi()
