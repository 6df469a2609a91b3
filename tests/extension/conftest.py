"""Schemas to upload, each in a namespace of its own, and a clean slate after every test."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from houndgraph.db import Database

EXTENSIONS = "/api/v2/extensions"
EDGES = "/api/v2/graph-schema/edges"
FEATURES = "/api/v2/features"
FLAG = "opengraph_extension_management"


def new_namespace() -> str:
    return f"T{uuid.uuid4().hex[:8]}"


def schema(namespace: str, *, name: str | None = None, version: str = "v1.0.0", **parts: Any) -> dict[str, Any]:
    """A valid schema: a display node kind `Host`, a traversable edge kind `Reaches` and a non-traversable `Sees`;
    `parts` replaces any of `node_kinds`, `relationship_kinds`, `environments`, `relationship_findings`."""
    body: dict[str, Any] = {
        "schema": {"name": name or f"{namespace}-ext", "display_name": f"{namespace} Extension",
                   "version": version, "namespace": namespace},
        "node_kinds": [{"name": f"{namespace}_Host", "display_name": "Host", "is_display_kind": True,
                        "icon": "server", "color": "#12AB34"},
                       {"name": f"{namespace}_Account", "display_name": "Account"}],
        "relationship_kinds": [{"name": f"{namespace}_Reaches", "description": "can reach", "is_traversable": True},
                               {"name": f"{namespace}_Sees", "is_traversable": False}],
    }
    body.update(parts)
    return body


def message(response: httpx.Response) -> str:
    return str(response.json()["errors"][0]["message"])


def extension_id(admin: httpx.Client, display_name: str) -> int:
    listed = admin.get(EXTENSIONS).json()["data"]["extensions"]
    return next(int(item["id"]) for item in listed if item["name"] == display_name)


@pytest.fixture(autouse=True)
def no_uploaded_extensions(database: Database) -> Iterator[None]:
    """Every test starts and ends without uploaded extensions (built-in ones stay) or their display settings."""
    yield
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("DELETE FROM custom_node_kinds WHERE kind_name ~ '^T[0-9a-f]{8}_'")
        conn.execute("DELETE FROM schema_extensions WHERE NOT is_builtin")


@contextmanager
def flag_off(admin: httpx.Client) -> Iterator[None]:
    flag = next(item for item in admin.get(FEATURES).json()["data"] if item["key"] == FLAG)
    assert flag["enabled"], "on by default"
    assert admin.put(f"{FEATURES}/{flag['id']}/toggle").status_code == 200
    try:
        yield
    finally:
        assert admin.put(f"{FEATURES}/{flag['id']}/toggle").status_code == 200
