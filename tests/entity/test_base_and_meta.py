"""GET /api/v2/base/{object_id} (+ its lists) and the Tier Zero combo node and tree of a domain."""

from __future__ import annotations

import httpx

from houndgraph.db import Database
from tests.user.helpers import assert_error

ADCS_SID = "S-1-5-21-909015691-3030120388-2582151266"
DOMAIN_ADMINS = f"{ADCS_SID}-512"


def test_base_panel_is_the_same_for_any_kind_of_node(admin: httpx.Client, labs: Database) -> None:
    group = admin.get(f"/api/v2/groups/{DOMAIN_ADMINS}").json()["data"]
    response = admin.get(f"/api/v2/base/{DOMAIN_ADMINS}")
    assert response.status_code == 200, response.text
    base = response.json()["data"]
    assert base["props"] == group["props"]
    assert base["controllers"] == group["controllers"] and base["controllables"] == group["controllables"]
    listed = admin.get(f"/api/v2/base/{DOMAIN_ADMINS}/controllers", params={"limit": 1000}).json()
    assert listed["count"] == base["controllers"]
    assert admin.get(f"/api/v2/base/{DOMAIN_ADMINS}/controllables").status_code == 200
    assert admin.get(f"/api/v2/base/{ADCS_SID}").status_code == 200, "a domain is a base entity too"
    assert admin.get("/api/v2/base/S-1-5-21-0-0-0-404").status_code == 404


def test_tier_zero_combo_node_and_tree(admin: httpx.Client, labs: Database) -> None:
    response = admin.get(f"/api/v2/meta-nodes/{ADCS_SID}")
    assert response.status_code == 200, response.text
    [combo] = response.json()["data"].values()
    assert combo["data"]["nodetype"] == "Meta" and DOMAIN_ADMINS in combo["data"]["members"]
    tree = admin.get(f"/api/v2/meta-trees/{ADCS_SID}").json()["data"]
    nodes = {key: item for key, item in tree.items() if not key.startswith("rel_")}
    assert {item["data"]["objectid"] for item in nodes.values()} == set(combo["data"]["members"])
    assert all(item["data"]["relationshiptype"] in ("MemberOf", "Contains")
               for key, item in tree.items() if key.startswith("rel_"))
    assert_error(admin.get("/api/v2/meta-nodes/S-1-5-21-0-0-0"), 404)


def test_a_domain_can_be_marked_collected_or_not(admin: httpx.Client, labs: Database) -> None:
    path = f"/api/v2/domains/{ADCS_SID}"
    response = admin.patch(path, json={"collected": False})
    assert response.status_code == 200 and response.json() == {"data": {"collected": False}}
    assert admin.get(path).json()["data"]["props"]["collected"] is False
    assert admin.patch(path, json={"collected": True}).json() == {"data": {"collected": True}}
    assert admin.get(path).json()["data"]["props"]["collected"] is True
    assert_error(admin.patch(path, json={"collected": "maybe"}), 400)
    assert_error(admin.patch("/api/v2/domains/S-1-5-21-0-0-0", json={"collected": True}), 404)
