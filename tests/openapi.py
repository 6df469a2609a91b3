"""Validate responses against the upstream OpenAPI subset (../shared/reference/upstream-openapi-subset.json)."""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import httpx
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.conftest import SHARED

SPEC_PATH = SHARED / "reference" / "upstream-openapi-subset.json"


def _to_json_schema(node: Any) -> Any:
    """OpenAPI 3.0 → JSON Schema: `nullable: true` becomes a null alternative."""
    if isinstance(node, list):
        return [_to_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    if node.get("additionalProperties") == {"type": "object"}:
        # Property maps (`props`, `properties`) are Go `map[string]any` that the spec writes as a map of
        # objects; their values are any JSON (strings, numbers, ...), so read them as such.
        node = {**node, "additionalProperties": True}
    converted = {key: _to_json_schema(value) for key, value in node.items()}
    if "oneOf" in converted:
        # The upstream spec's oneOf alternatives are open objects (no required fields, extra keys allowed),
        # so a valid body matches several of them and strict oneOf can never pass: read it as anyOf.
        converted["anyOf"] = converted.pop("oneOf")
    if converted.pop("nullable", False):
        if "type" in converted:
            kinds = converted["type"] if isinstance(converted["type"], list) else [converted["type"]]
            converted["type"] = [*kinds, "null"]
        else:
            converted = {"anyOf": [converted, {"type": "null"}]}
    return converted


# The spec's `null.*` wrapper schemas describe the reference's Go structs, not its wire: those types marshal
# as the plain value or null. `null.time` also stands for the bare `sql.NullTime` of `deleted_at`, which Go
# writes as the struct with exported names ({"Time": ..., "Valid": ...}).
_NULL_WIRE: dict[str, Any] = {
    "null.string": {"type": ["string", "null"]},
    "null.int32": {"type": ["integer", "null"]},
    "null.int64": {"type": ["integer", "null"]},
    "null.boolean": {"type": ["boolean", "null"]},
    "null.uuid": {"type": ["string", "null"], "format": "uuid"},
    "null.time": {"anyOf": [
        {"type": ["string", "null"], "format": "date-time"},
        {"type": "object", "required": ["Time", "Valid"],
         "properties": {"Time": {"type": "string", "format": "date-time"}, "Valid": {"type": "boolean"}}},
    ]},
}


@cache
def _spec() -> dict[str, Any]:
    spec = _to_json_schema(json.loads(SPEC_PATH.read_text()))
    spec["components"]["schemas"].update(copy.deepcopy(_NULL_WIRE))
    return spec


@cache
def _registry() -> Registry:
    return Registry().with_resource("urn:spec", Resource.from_contents(_spec(), default_specification=DRAFT202012))


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = _spec()
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def _rewrite_refs(node: Any) -> Any:
    if isinstance(node, list):
        return [_rewrite_refs(item) for item in node]
    if isinstance(node, dict):
        return {key: ("urn:spec" + value if key == "$ref" else _rewrite_refs(value)) for key, value in node.items()}
    return node


def response_schema(path: str, method: str, status: int) -> dict[str, Any] | None:
    operation = _spec()["paths"][path][method.lower()]
    responses = operation["responses"]
    response = responses.get(str(status)) or responses.get("default")
    if response is None and status >= 400:
        # Every failure carries the shared error body, whether or not the operation lists the status.
        return {"$ref": "urn:spec#/components/schemas/api.error-wrapper"}
    assert response is not None, f"the spec has no {status} response for {method} {path}"
    response = _resolve(response)
    content = response.get("content", {})
    media = content.get("application/json")
    if media is None:
        return None
    return _rewrite_refs(copy.deepcopy(media["schema"]))


def assert_matches_spec(response: httpx.Response, path: str, method: str | None = None) -> None:
    """`path` is the spec's template, e.g. "/api/v2/tokens/{token_id}"."""
    method = method or response.request.method
    schema = response_schema(path, method, response.status_code)
    if schema is None:
        return
    validator = Draft202012Validator(schema, registry=_registry())
    errors = sorted(validator.iter_errors(response.json()), key=lambda e: list(e.path))
    assert not errors, "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


def assert_matches_component(body: Any, component: str) -> None:
    """For operations the spec subset leaves out: validate a body against one of its component schemas."""
    validator = Draft202012Validator({"$ref": f"urn:spec#/components/schemas/{component}"}, registry=_registry())
    errors = sorted(validator.iter_errors(body), key=lambda e: list(e.path))
    assert not errors, "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


def assert_matches_own_document(client: httpx.Client, response: httpx.Response, path: str) -> None:
    """Validate a JSON answer against the schema this service's own document (/api/openapi.json) declares for
    its operation and status; `path` is the document's template, e.g. "/api/v2/azure/{entity_type}"."""
    document = client.get("/api/openapi.json").raise_for_status().json()
    responses = document["paths"][path][response.request.method.lower()]["responses"]
    declared = responses.get(str(response.status_code)) or responses[f"{str(response.status_code)[0]}XX"]
    own = declared["content"]["application/json"]["schema"]
    assert own, f"the document declares no schema for {response.status_code} of {path}"
    # The document's `#/components/...` references resolve against the root of the schema they sit in.
    schema = {**own, "components": document["components"]}
    errors = sorted(Draft202012Validator(schema).iter_errors(response.json()), key=lambda e: list(e.path))
    assert not errors, "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
