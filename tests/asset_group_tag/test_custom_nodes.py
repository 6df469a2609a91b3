"""`/api/v2/custom-nodes` as forcehound `--setup` and sfhound's icon script use it."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from houndgraph.db import Database
from tests.auth.test_login import assert_error

NODES = "/api/v2/custom-nodes"


@pytest.fixture
def custom_nodes(database: Database) -> Iterator[None]:
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("DELETE FROM custom_node_kinds")
    yield


def icon(name: str, color: str = "#FF0000", kind: str = "font-awesome") -> dict:
    return {"icon": {"type": kind, "name": name, "color": color}}


def test_create_list_get_update_delete(admin: httpx.Client, custom_nodes: None) -> None:
    response = admin.post(NODES, json={"custom_types": {"SFUser": icon("user"), "SFOrg": icon("building", "")}})
    assert response.status_code == 201, response.text
    created = {row["kindName"]: row for row in response.json()["data"]}
    assert created["SFUser"]["config"] == icon("user")
    assert created["SFOrg"]["config"]["icon"]["color"] == "#FFFFFF"  # the default colour
    assert {row["kindName"] for row in admin.get(NODES).json()["data"]} == {"SFUser", "SFOrg"}
    one = admin.get(f"{NODES}/SFUser")
    assert one.status_code == 200 and one.json()["data"]["id"] == created["SFUser"]["id"]
    updated = admin.put(f"{NODES}/SFUser", json={"config": icon("user-secret", "#0f0")})
    assert updated.status_code == 200 and updated.json()["data"]["config"] == icon("user-secret", "#0f0")
    deleted = admin.delete(f"{NODES}/SFUser")
    assert deleted.status_code == 200
    assert_error(admin.get(f"{NODES}/SFUser"), 404, "resource not found")
    assert_error(admin.delete(f"{NODES}/SFUser"), 404, "resource not found")
    assert_error(admin.put(f"{NODES}/Nope", json={"config": icon("x")}), 404, "resource not found")


def test_refusals_change_nothing(admin: httpx.Client, custom_nodes: None) -> None:
    assert admin.post(NODES, json={"custom_types": {"SFUser": icon("user")}}).status_code == 201
    assert_error(admin.post(NODES, json={"custom_types": {"SFUser": icon("user"), "New": icon("x")}}), 409,
                 "Conflict: duplicate kind name")
    assert_error(admin.post(NODES, json={"custom_types": {"": icon("x")}}), 400,
                 "BadRequest: custom_types contains an entry with an empty string as a key. please remove or "
                 "replace the empty key")
    assert_error(admin.post(NODES, json={"custom_types": {"A": icon("x", kind="material")}}), 400,
                 "BadRequest: invalid icon type. only Font Awesome icons are supported")
    assert_error(admin.post(NODES, json={"custom_types": {"A": icon("x", "red")}}), 400,
                 "BadRequest: icon color must be a valid hexadecimal color string starting with '#' followed by 3 "
                 "or 6 hex digits")
    assert_error(admin.put(f"{NODES}/SFUser", json={"config": icon("x", "red")}), 400)
    assert_error(admin.post(NODES, content=b"[", headers={"Content-Type": "application/json"}), 400,
                 "error unmarshalling JSON payload")
    assert [row["kindName"] for row in admin.get(NODES).json()["data"]] == ["SFUser"]
    assert admin.get(f"{NODES}/SFUser").json()["data"]["config"] == icon("user")
