"""The legacy `/api/v2/asset-groups` routes older clients call, answered from Tier Zero and Owned."""

from __future__ import annotations

import httpx

from houndgraph.db import Database
from tests.asset_group_tag.conftest import TAGS, Analyse, load_graph, tag_id, tagged
from tests.auth.test_login import assert_error

GROUPS = "/api/v2/asset-groups"
D = "S-1-5-21-9"


def groups(http: httpx.Client) -> dict[str, dict]:
    response = http.get(GROUPS)
    assert response.status_code == 200, response.text
    return {group["tag"]: group for group in response.json()["data"]["asset_groups"]}


def test_the_two_groups(admin: httpx.Client, zones: Database, analyse: Analyse) -> None:
    load_graph(zones, [(D, "Domain", {"domainsid": D}), (f"{D}-512", "Group", {"domainsid": D}),
                       ("AZ-T", "AZTenant", {"tenantid": "AZ-T"})], [])
    admin.put("/api/v2/analysis")
    assert analyse()
    listed = groups(admin)
    assert set(listed) == {"admin_tier_0", "owned"}
    tier_zero = listed["admin_tier_0"]
    assert tier_zero["name"] == "Admin Tier Zero" and tier_zero["system_group"] is True
    assert tier_zero["id"] == tag_id(admin, "Tier Zero") and tier_zero["member_count"] == 3
    assert any(s["name"] == "Domain Admins" and s["system_selector"] for s in tier_zero["selectors"])
    assert [g["name"] for g in admin.get(GROUPS, params={"sort_by": "-name"}).json()["data"]["asset_groups"]] == \
        ["Owned", "Admin Tier Zero"]
    assert [g["tag"] for g in admin.get(GROUPS, params={"tag": "eq:owned"}).json()["data"]["asset_groups"]] == \
        ["owned"]
    one = admin.get(f"{GROUPS}/{tier_zero['id']}")
    assert one.status_code == 200 and one.json()["data"]["tag"] == "admin_tier_0"
    members = admin.get(f"{GROUPS}/{tier_zero['id']}/members", params={"sort_by": "name"})
    assert members.status_code == 200
    body = members.json()
    assert body["count"] == 3 and body["limit"] == 100
    by_id = {m["object_id"]: m for m in body["data"]["members"]}
    assert by_id[f"{D}-512"]["primary_kind"] == "Group" and by_id[f"{D}-512"]["environment_kind"] == "Domain"
    assert by_id[f"{D}-512"]["environment_id"] == D and by_id[f"{D}-512"]["custom_member"] is False
    assert by_id["AZ-T"]["environment_kind"] == "AZTenant" and by_id["AZ-T"]["environment_id"] == "AZ-T"
    counts = admin.get(f"{GROUPS}/{tier_zero['id']}/members/counts").json()["data"]
    assert counts == {"total_count": 3, "counts": {"Domain": 1, "Group": 1, "AZTenant": 1}}
    assert admin.get(f"{GROUPS}/{tier_zero['id']}/collections").json() == {"data": []}
    assert admin.get(f"{GROUPS}/{tier_zero['id']}/custom-selectors").json() == {"data": {"custom_member_count": 0}}
    assert_error(admin.get(f"{GROUPS}/abc"), 400, "id is malformed")
    assert_error(admin.get(f"{GROUPS}/99999"), 404, "resource not found")
    assert_error(admin.get(GROUPS, params={"sort_by": "id"}), 400, "column format does not support sorting: id")


def test_owned_marking_through_the_legacy_route(admin: httpx.Client, zones: Database, analyse: Analyse) -> None:
    load_graph(zones, [(f"{D}-1100", "User", {"domainsid": D}), (f"{D}-1101", "User", {"domainsid": D})], [])
    owned = groups(admin)["owned"]["id"]
    response = admin.put(f"{GROUPS}/{owned}/selectors",
                         json=[{"selector_name": "alice", "sid": f"{D}-1100", "action": "add"},
                               {"selector_name": "bob", "sid": f"{D}-1101", "action": "add"}])
    assert response.status_code == 201, response.text
    added = response.json()["data"]["added_selectors"]
    assert [(s["name"], s["selector"], s["system_selector"]) for s in added] == [
        ("alice", f"{D}-1100", False), ("bob", f"{D}-1101", False)]
    assert analyse()
    assert tagged(zones, "Tag_Owned") == {f"{D}-1100", f"{D}-1101"}
    cypher = admin.post("/api/v2/graphs/cypher", json={"query": "MATCH (n:Tag_Owned) RETURN n"})
    assert {node["objectId"] for node in cypher.json()["data"]["nodes"].values()} == {f"{D}-1100", f"{D}-1101"}
    members = admin.get(f"{GROUPS}/{owned}/members").json()["data"]["members"]
    assert all(member["custom_member"] for member in members)
    # The tags API sees the same selectors.
    selectors = admin.get(f"{TAGS}/{owned}/selectors").json()["data"]["selectors"]
    assert {s["name"] for s in selectors} == {"alice", "bob"}
    removed = admin.put(f"{GROUPS}/{owned}/selectors", json=[{"selector_name": "x", "sid": f"{D}-1100",
                                                               "action": "remove"}])
    assert [s["name"] for s in removed.json()["data"]["removed_selectors"]] == ["alice"]
    assert analyse()
    assert tagged(zones, "Tag_Owned") == {f"{D}-1101"}
    assert_error(admin.put(f"{GROUPS}/{owned}/selectors", json=[{"selector_name": "x", "sid": "y", "action": "pwn"}]),
                 400, "invalid action: expected add or remove")
    assert_error(admin.put(f"{GROUPS}/{owned}/selectors", content=b"{", headers={"Content-Type": "application/json"}),
                 400, "error unmarshalling JSON payload")
