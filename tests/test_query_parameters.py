"""Every query parameter a client may send is declared in /api/openapi.json, and integers are checked at the edge."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx

from tests.conftest import SHARED

UPSTREAM = json.loads((SHARED / "reference" / "upstream-openapi-subset.json").read_text())
BEYOND_64_BITS = "1000000000000000000000"

# Parameters the upstream spec declares that we deliberately do not accept, with the reason.
NOT_DECLARED = {
    # A token's key never leaves the service after creation: a filter on it would let it be guessed.
    ("get", "/api/v2/tokens", "key"): "tokens are not filterable by key",
    # Tokens and permissions are deleted, never soft-deleted: the reference column is always null.
    ("get", "/api/v2/tokens", "deleted_at"): "tokens are never soft-deleted",
    ("get", "/api/v2/permissions", "deleted_at"): "permissions are never soft-deleted",
}

# What a list route needs besides paging to get as far as reading `skip` and `limit`.
PATH_VALUES = {"platform_id": "ad", "entity_type": "users"}
REQUIRED_QUERY = {
    "/api/v2/search": {"q": "x"},
    "/api/v2/azure/{entity_type}": {"object_id": "X", "related_entity_type": "x"},
}


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = UPSTREAM
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def _declared(operation: dict[str, Any], common: list[dict[str, Any]] | None = None) -> set[tuple[str, str]]:
    parameters = [_resolve(p) for p in [*(common or []), *operation.get("parameters", [])]]
    return {(p["name"], p["in"]) for p in parameters if p["in"] in ("query", "path")}


def _openapi(client: httpx.Client) -> dict[str, Any]:
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    return response.json()


def test_every_upstream_parameter_is_declared(client: httpx.Client) -> None:
    ours = _openapi(client)["paths"]
    missing = []
    compared = 0
    for path, operations in UPSTREAM["paths"].items():
        for method, operation in operations.items():
            if method == "parameters" or method not in ours.get(path, {}):
                continue
            compared += 1
            wanted = _declared(operation, operations.get("parameters", []))
            have = _declared(ours[path][method])
            missing += [(method, path, name) for name, _ in sorted(wanted - have)
                        if (method, path, name) not in NOT_DECLARED]
    assert compared >= 50  # the operations both specs have (51 when written)
    assert missing == []


def _list_routes(client: httpx.Client) -> list[tuple[str, dict[str, str]]]:
    routes = []
    for path, operations in _openapi(client)["paths"].items():
        get = operations.get("get", {})
        if {"skip", "limit"} <= {p["name"] for p in get.get("parameters", []) if p["in"] == "query"}:
            concrete = re.sub(r"\{([^}]+)\}", lambda m: PATH_VALUES.get(m.group(1), "1"), path)
            routes.append((concrete, REQUIRED_QUERY.get(path, {})))
    return routes


def test_every_list_route_refuses_skip_and_limit_beyond_64_bits(admin: httpx.Client) -> None:
    routes = _list_routes(admin)
    assert len(routes) >= 71
    for path, required in routes:
        for name in ("skip", "limit"):
            response = admin.get(path, params={**required, name: BEYOND_64_BITS})
            assert response.status_code == 400, f"{path}?{name}= answered {response.status_code}"
            assert f"invalid {name}: {BEYOND_64_BITS}" in response.json()["errors"][0]["message"], path


def test_the_largest_64_bit_limit_is_accepted(admin: httpx.Client) -> None:
    response = admin.get("/api/v2/file-upload", params={"limit": str(2**63 - 1)})
    assert response.status_code == 200
    assert response.json()["limit"] == 2**63 - 1


def test_integer_filters_beyond_64_bits_are_bad_filters(admin: httpx.Client) -> None:
    for path in ("/api/v2/roles", "/api/v2/permissions", "/api/v2/saved-queries", "/api/v2/sso-providers",
                 "/api/v2/file-upload"):
        response = admin.get(path, params={"id": f"eq:{BEYOND_64_BITS}"})
        assert response.status_code == 400, path
        assert response.json()["errors"][0]["message"] == "there are errors in the query parameter filters specified"
