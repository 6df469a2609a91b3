"""Selectors over HTTP: create (201), op 7 (PATCH) and op 13 (DELETE), seed validation, and what each
change does to membership after the analysis it requests."""

from __future__ import annotations

import httpx
import pytest

from houndgraph.db import Database
from tests.asset_group_tag.conftest import TAGS, Analyse, load_graph, tag_id, tagged
from tests.auth.test_login import assert_error
from tests.openapi import assert_matches_spec

DOMAIN = "S-1-5-21-7"
ONE_SELECTOR = "/api/v2/asset-group-tags/{asset_group_tag_id}/selectors/{asset_group_tag_selector_id}"


def selectors_url(http: httpx.Client, tag: str = "Tier Zero") -> str:
    return f"{TAGS}/{tag_id(http, tag)}/selectors"


def default_selector(http: httpx.Client, name: str) -> dict:
    listed = http.get(selectors_url(http), params={"limit": 100, "name": f"eq:{name}"}).json()["data"]["selectors"]
    assert len(listed) == 1
    return listed[0]


def create(http: httpx.Client, url: str, body: dict) -> dict:
    response = http.post(url, json=body)
    assert response.status_code == 201, response.text
    assert_matches_spec(response, "/api/v2/asset-group-tags/{asset_group_tag_id}/selectors")
    return response.json()["data"]


def small_domain(database: Database) -> None:
    load_graph(database, [(DOMAIN, "Domain", {}), (f"{DOMAIN}-512", "Group", {}), (f"{DOMAIN}-1100", "User", {}),
                          (f"{DOMAIN}-1101", "User", {}), (f"{DOMAIN}-502", "User", {}),
                          (f"{DOMAIN}-1200", "Group", {})],
               [(f"{DOMAIN}-1100", "MemberOf", f"{DOMAIN}-512"), (f"{DOMAIN}-1101", "MemberOf", f"{DOMAIN}-1200")])


@pytest.mark.parametrize(("body", "message"), [
    ({"name": "x", "seeds": []}, "seeds are required"),
    ({"name": "x", "seeds": [{"type": 1, "value": "A"}, {"type": 2, "value": "MATCH (n) RETURN n"}]},
     "all seeds must be of the same type"),
    ({"name": "x", "seeds": [{"type": 3, "value": "A"}]}, "invalid seed type 3"),
    ({"name": "x", "seeds": [{"type": 2, "value": "MATCH (n RETURN n"}]}, None),
    ({"name": "x", "seeds": [{"type": 2, "value": "MATCH (n) DETACH DELETE n"}]},
     "cypher is invalid: updating clauses are not supported"),
    ({"name": "x", "seeds": [{"type": 2, "value": "MATCH (a)-[*]->(b)-[*]->(c) RETURN a"}]},
     "cypher is invalid: cypher query is too complex and is likely to result in poor or unstable database performance"),
    ({"name": "x", "seeds": [{"type": 1, "value": "A"}], "auto_certify": 3},
     "auto_certify must be an input value of 0 to 2"),
    ({"name": "", "seeds": [{"type": 1, "value": "A"}]}, "selector name can not be empty"),
    ({"seeds": [{"type": 1, "value": "A"}]}, "missing required field: name"),
    ({"name": "x"}, "missing required field: seeds"),
])
def test_create_refuses_bad_selectors(admin: httpx.Client, zones: Database, body: dict, message: str | None) -> None:
    url = selectors_url(admin)
    before = admin.get(url, params={"limit": 100}).json()["count"]
    body_error = assert_error(admin.post(url, json=body), 400, message)
    if message is None:
        assert body_error["errors"][0]["message"].startswith("cypher is invalid: ")
    assert admin.get(url, params={"limit": 100}).json()["count"] == before


def test_auto_certify_only_on_zones_and_names_unique_per_tag(admin: httpx.Client, zones: Database) -> None:
    owned = selectors_url(admin, "Owned")
    assert_error(admin.post(owned, json={"name": "x", "seeds": [{"type": 1, "value": "A"}], "auto_certify": 1}), 400,
                 "auto_certify is only available for asset group tags of tag_type = 1 (zones)")
    create(admin, owned, {"name": "mine", "seeds": [{"type": 1, "value": "A"}]})
    assert_error(admin.post(owned, json={"name": "mine", "seeds": [{"type": 1, "value": "B"}]}), 409,
                 "asset group tag selector name must be unique")
    # The same name on another tag is fine.
    create(admin, selectors_url(admin), {"name": "mine", "seeds": [{"type": 1, "value": "A"}]})


def test_a_null_auto_certify_is_off(admin: httpx.Client, zones: Database) -> None:
    # What the reference's UI sends for a rule made without automatic certification.
    for url in (selectors_url(admin), selectors_url(admin, "Owned")):
        created = create(admin, url, {"name": "no certification", "seeds": [{"type": 1, "value": "A"}],
                                      "auto_certify": None})
        assert created["auto_certify"] == 0


def test_created_selector_shape_and_membership_after_analysis(admin: httpx.Client, zones: Database,
                                                              analyse: Analyse) -> None:
    small_domain(zones)
    url = selectors_url(admin)
    cypher = f"MATCH (n:Group) WHERE n.objectid = '{DOMAIN}-1200' RETURN n"
    selector = create(admin, url, {"name": "Helpdesk", "description": "help", "auto_certify": 2,
                                   "seeds": [{"type": 2, "value": cypher}]})
    assert selector["is_default"] is False and selector["allow_disable"] is True and selector["disabled_at"] is None
    assert selector["auto_certify"] == 2 and selector["description"] == "help"
    assert selector["seeds"][0]["type"] == 2 and selector["asset_group_tag_id"] == tag_id(admin, "Tier Zero")
    assert f"{DOMAIN}-1101" not in tagged(zones, "Tag_Tier_Zero")
    assert analyse()
    assert {f"{DOMAIN}-1200", f"{DOMAIN}-1101", f"{DOMAIN}-512", f"{DOMAIN}-1100", DOMAIN} == \
        tagged(zones, "Tag_Tier_Zero")
    one = admin.get(f"{url}/{selector['id']}")
    assert one.status_code == 200 and one.json()["data"]["selector"]["name"] == "Helpdesk"
    assert_matches_spec(one, ONE_SELECTOR)
    counted = admin.get(url, params={"counts": "true", "name": "eq:Helpdesk"}).json()["data"]["selectors"]
    assert counted[0]["counts"] == {"members": 2}


def test_patch_changes_only_given_fields(admin: httpx.Client, zones: Database, analyse: Analyse) -> None:
    small_domain(zones)
    url = selectors_url(admin)
    selector = create(admin, url, {"name": "ops", "seeds": [{"type": 1, "value": f"{DOMAIN}-1200"}]})
    analyse()
    response = admin.patch(f"{url}/{selector['id']}", json={"description": "operators"})
    assert response.status_code == 200, response.text
    assert_matches_spec(response, ONE_SELECTOR)
    body = response.json()["data"]
    assert (body["name"], body["description"], body["seeds"]) == ("ops", "operators", selector["seeds"])
    assert analyse()  # any change requests analysis
    moved = admin.patch(f"{url}/{selector['id']}", json={"seeds": [{"type": 1, "value": f"{DOMAIN}-1101"}]})
    assert moved.json()["data"]["seeds"][0]["value"] == f"{DOMAIN}-1101"
    assert analyse()
    assert f"{DOMAIN}-1101" in tagged(zones, "Tag_Tier_Zero") and f"{DOMAIN}-1200" not in tagged(zones, "Tag_Tier_Zero")
    disabled = admin.patch(f"{url}/{selector['id']}", json={"disabled": True})
    assert disabled.json()["data"]["disabled_at"] is not None and disabled.json()["data"]["disabled_by"]
    assert analyse()
    assert f"{DOMAIN}-1101" not in tagged(zones, "Tag_Tier_Zero")
    assert_error(admin.get(f"{url}/{selector['id']}/members"), 409, "selector is disabled")
    assert_error(admin.get(f"{url}/{selector['id']}/members/counts"), 409, "selector is disabled")
    counted = admin.get(url, params={"counts": "true", "name": "eq:ops"}).json()["data"]["selectors"]
    assert counted[0]["counts"] == {"members": 0}
    enabled = admin.patch(f"{url}/{selector['id']}", json={"disabled": False})
    assert enabled.json()["data"]["disabled_at"] is None
    assert analyse()
    assert f"{DOMAIN}-1101" in tagged(zones, "Tag_Tier_Zero")


def test_default_selectors_change_only_auto_certify_and_disabled(admin: httpx.Client, zones: Database,
                                                                 analyse: Analyse) -> None:
    small_domain(zones)
    url = selectors_url(admin)
    core, optional = default_selector(admin, "Domain Admins"), default_selector(admin, "KRBTGT objects")
    for body in ({"name": "DA"}, {"description": "x"}, {"seeds": [{"type": 1, "value": "A"}]}):
        assert_error(admin.patch(f"{url}/{core['id']}", json=body), 403,
                     "default selectors only support modifying auto_certify and disabled_at")
    assert_error(admin.patch(f"{url}/{core['id']}", json={"disabled": True}), 403, "this selector cannot be disabled")
    assert_error(admin.patch(f"{url}/{core['id']}", json={}), 400, "no valid fields specified")
    assert admin.patch(f"{url}/{core['id']}", json={"auto_certify": 1}).json()["data"]["auto_certify"] == 1
    assert analyse()
    assert f"{DOMAIN}-502" not in tagged(zones, "Tag_Tier_Zero")  # KRBTGT objects ship disabled
    assert admin.patch(f"{url}/{optional['id']}", json={"disabled": False}).status_code == 200
    assert analyse()
    assert f"{DOMAIN}-502" in tagged(zones, "Tag_Tier_Zero")  # KRBTGT objects, once enabled
    assert_error(admin.delete(f"{url}/{core['id']}"), 403, "cannot delete a default selector")
    assert admin.get(f"{url}/{core['id']}").status_code == 200


def test_delete_and_unknown_ids(admin: httpx.Client, zones: Database, analyse: Analyse) -> None:
    small_domain(zones)
    url = selectors_url(admin)
    selector = create(admin, url, {"name": "ops", "seeds": [{"type": 1, "value": f"{DOMAIN}-1200"}]})
    analyse()
    assert f"{DOMAIN}-1200" in tagged(zones, "Tag_Tier_Zero")
    other = create(admin, selectors_url(admin, "Owned"), {"name": "elsewhere", "seeds": [{"type": 1, "value": "Z"}]})
    assert_error(admin.get(f"{url}/{other['id']}"), 404, "selector is not part of asset group tag")
    assert_error(admin.patch(f"{url}/{other['id']}", json={"name": "y"}), 404,
                 "selector is not part of asset group tag")
    assert_error(admin.get(f"{url}/abc"), 404, "id is malformed")
    assert_error(admin.delete(f"{url}/999999"), 404, "resource not found")
    response = admin.delete(f"{url}/{selector['id']}")
    assert response.status_code == 204 and response.content == b""
    assert analyse()
    assert f"{DOMAIN}-1200" not in tagged(zones, "Tag_Tier_Zero")
    assert_error(admin.get(f"{url}/{selector['id']}"), 404, "resource not found")


def test_list_sorting_filters_and_paging(admin: httpx.Client, zones: Database) -> None:
    url = selectors_url(admin)
    create(admin, url, {"name": "zeta", "seeds": [{"type": 1, "value": "A"}]})
    listed = admin.get(url, params={"limit": 2, "skip": 1, "sort_by": "-name", "counts": "true"})
    assert_matches_spec(listed, "/api/v2/asset-group-tags/{asset_group_tag_id}/selectors")
    page = listed.json()
    assert page["limit"] == 2 and page["skip"] == 1 and len(page["data"]["selectors"]) == 2
    names = [s["name"] for s in admin.get(url, params={"limit": 100, "sort_by": "-name"}).json()["data"]["selectors"]]
    assert names == sorted(names, reverse=True) and names[0] == "zeta"
    by_type = admin.get(url, params={"limit": 100, "type": "eq:1"}).json()["data"]["selectors"]
    assert [s["name"] for s in by_type] == ["zeta"]
    custom = admin.get(url, params={"limit": 100, "is_default": "eq:false"}).json()["data"]["selectors"]
    assert [s["name"] for s in custom] == ["zeta"]
    assert admin.get(url).json()["limit"] == 50
    assert_error(admin.get(url, params={"sort_by": "seeds"}), 400, "column format does not support sorting: seeds")
    assert_error(admin.get(url, params={"allow_disable": "eq:true"}), 400,
                 "the specified column cannot be filtered: allow_disable")


def test_parent_objects_follow_the_feature_flag(admin: httpx.Client, zones: Database, analyse: Analyse) -> None:
    load_graph(zones, [(DOMAIN, "Domain", {}), ("OU-ADMINS", "OU", {}), (f"{DOMAIN}-512", "Group", {}),
                       ("GPO-1", "GPO", {})],
               [(DOMAIN, "Contains", "OU-ADMINS"), ("OU-ADMINS", "Contains", f"{DOMAIN}-512"),
                ("GPO-1", "GPLink", "OU-ADMINS")])
    admin.put("/api/v2/analysis")
    assert analyse()
    assert {"OU-ADMINS", "GPO-1"} <= tagged(zones, "Tag_Tier_Zero")
    flags = {flag["key"]: flag for flag in admin.get("/api/v2/features").json()["data"]}
    assert flags["tier_management_engine"]["enabled"] is True
    flag = flags["auto_tag_t0_parent_objects"]
    assert flag["enabled"] is True and flag["user_updatable"] is True
    try:
        assert admin.put(f"/api/v2/features/{flag['id']}/toggle").json() == {"data": {"enabled": False}}
        admin.put("/api/v2/analysis")
        assert analyse()
        assert tagged(zones, "Tag_Tier_Zero") == {DOMAIN, f"{DOMAIN}-512"}
    finally:
        admin.put(f"/api/v2/features/{flag['id']}/toggle")


def test_clear_database_deletes_custom_selectors_and_selections(admin: httpx.Client, zones: Database,
                                                                 analyse: Analyse) -> None:
    small_domain(zones)
    url, owned = selectors_url(admin), selectors_url(admin, "Owned")
    create(admin, url, {"name": "ops", "seeds": [{"type": 1, "value": f"{DOMAIN}-1200"}]})
    create(admin, owned, {"name": "mine", "seeds": [{"type": 1, "value": f"{DOMAIN}-1101"}]})
    assert analyse()
    tier_zero = tag_id(admin, "Tier Zero")
    response = admin.post("/api/v2/clear-database", json={"deleteAssetGroupSelectors": [tier_zero]})
    assert response.status_code == 204, response.text
    analyse()  # one tick: the purge, then the analysis it asks for
    assert admin.get(url, params={"is_default": "eq:false"}).json()["count"] == 0
    assert admin.get(owned).json()["count"] == 1
    assert f"{DOMAIN}-1200" not in tagged(zones, "Tag_Tier_Zero")
    assert tagged(zones, "Tag_Owned") == {f"{DOMAIN}-1101"}
    admin.post("/api/v2/clear-database", json={"deleteCollectedGraphData": True})
    analyse()
    with zones.connect_raw() as conn:
        assert conn.execute("SELECT count(*) FROM asset_group_tag_selector_nodes").fetchone() == (0,)
