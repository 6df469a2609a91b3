"""Tags over HTTP: the defaults, listing with counts, op 9 (PATCH) rule by rule, creating and deleting zones."""

from __future__ import annotations

import httpx
import pytest

from houndgraph.db import Database
from tests.asset_group_tag.conftest import TAGS, Analyse, load_graph, tag_id, tagged
from tests.auth.test_login import assert_error
from tests.conftest import LiveServer
from tests.factories import account
from tests.openapi import assert_matches_spec


def create_zone(http: httpx.Client, name: str, **fields: object) -> dict:
    response = http.post(TAGS, json={"name": name, "type": 1, **fields})
    assert response.status_code == 201, response.text
    return response.json()["data"]


def create_label(http: httpx.Client, name: str) -> dict:
    response = http.post(TAGS, json={"name": name, "type": 2})
    assert response.status_code == 201, response.text
    return response.json()["data"]


def test_the_migration_creates_tier_zero_and_owned(admin: httpx.Client, zones: Database) -> None:
    response = admin.get(TAGS)
    assert response.status_code == 200
    tags = {tag["name"]: tag for tag in response.json()["data"]["tags"]}
    assert set(tags) == {"Tier Zero", "Owned"}
    assert tags["Tier Zero"]["type"] == 1 and tags["Tier Zero"]["position"] == 1
    assert tags["Tier Zero"]["require_certify"] is False and tags["Tier Zero"]["created_by"] == "SYSTEM"
    assert tags["Owned"]["type"] == 3 and tags["Owned"]["position"] is None
    assert "counts" not in tags["Owned"]
    one = admin.get(f"{TAGS}/{tags['Tier Zero']['id']}")
    assert one.status_code == 200
    assert one.json()["data"]["tag"]["name"] == "Tier Zero"
    selectors = admin.get(f"{TAGS}/{tags['Tier Zero']['id']}/selectors", params={"limit": 100}).json()
    assert "data" in selectors, selectors
    by_name = {selector["name"]: selector for selector in selectors["data"]["selectors"]}
    assert selectors["count"] == len(by_name) >= 30
    core = by_name["Domain Admins"]
    assert core["is_default"] and not core["allow_disable"] and core["disabled_at"] is None
    assert core["seeds"] == [{"selector_id": core["id"], "type": 2,
                              "value": "MATCH (n:Group)\nWHERE n.objectid ENDS WITH '-512'\nRETURN n;"}]
    optional = by_name["KRBTGT objects"]
    assert optional["is_default"] and optional["allow_disable"] and optional["disabled_at"] is not None


def test_counts_list_selectors_and_tagged_members(admin: httpx.Client, zones: Database, analyse: Analyse) -> None:
    load_graph(zones, [("S-1-5-21-1", "Domain", {}), ("S-1-5-21-1-512", "Group", {}),
                       ("S-1-5-21-1-1100", "User", {})],
               [("S-1-5-21-1-1100", "MemberOf", "S-1-5-21-1-512")])
    admin.put("/api/v2/analysis")
    assert analyse()
    response = admin.get(TAGS, params={"counts": "true"})
    assert response.status_code == 200
    tags = {tag["name"]: tag for tag in response.json()["data"]["tags"]}
    counts = tags["Tier Zero"]["counts"]
    assert counts["members"] == 3
    assert counts["selectors"] == counts["custom_selectors"] + counts["default_selectors"]
    assert counts["custom_selectors"] == 0 and counts["disabled_selectors"] > 0
    assert tags["Owned"]["counts"]["members"] == 0
    assert_error(admin.get(TAGS, params={"counts": "maybe"}), 400, "Invalid value specified for include counts")


def test_list_filters(admin: httpx.Client, zones: Database) -> None:
    create_label(admin, "Crown Jewels")
    names = lambda params: {tag["name"] for tag in admin.get(TAGS, params=params).json()["data"]["tags"]}  # noqa: E731
    assert names({"type": "eq:2"}) == {"Crown Jewels"}
    assert names({"name": "~eq:jewel"}) == {"Crown Jewels"}
    assert names({"type": "neq:2"}) == {"Tier Zero", "Owned"}
    assert_error(admin.get(TAGS, params={"glyph": "eq:x"}), 400, "the specified column cannot be filtered: glyph")
    assert_error(admin.get(TAGS, params={"type": "gt:1"}), 400,
                 "the specified filter predicate is not supported for this column: type gt")


@pytest.mark.parametrize("raw", ["abc", "1.5"])
def test_a_malformed_tag_id_is_404(admin: httpx.Client, zones: Database, raw: str) -> None:
    assert_error(admin.get(f"{TAGS}/{raw}"), 404, "id is malformed")
    assert_error(admin.get(f"{TAGS}/99999"), 404, "resource not found")


def test_patch_rules_in_order(admin: httpx.Client, zones: Database) -> None:
    tier_zero, owned = tag_id(admin, "Tier Zero"), tag_id(admin, "Owned")
    label = create_label(admin, "Label One")["id"]
    zone = create_zone(admin, "Tier One")["id"]

    def patch(tag: int, body: object) -> httpx.Response:
        return admin.patch(f"{TAGS}/{tag}", json=body)

    assert_error(patch(zone, {"name": ""}), 400, "name can not be empty")
    assert_error(patch(tier_zero, {"name": "Top"}), 400, "renaming default tags is forbidden currently")
    assert_error(patch(owned, {"name": "Pwned"}), 400, "renaming default tags is forbidden currently")
    assert_error(patch(zone, {"name": "Tier-One"}), 400,
                 "asset group tag name must contain only alphanumeric characters, spaces, and underscores")
    assert_error(patch(label, {"require_certify": True}), 400, "only zones support modifying require_certify")
    assert_error(patch(label, {"position": 2}), 400, "only zones support modifying position")
    assert_error(patch(tier_zero, {"position": 2}), 403, "tier zero position cannot be modified")
    assert_error(patch(zone, {"position": 3}), 400, "provided tier position is out of range")
    assert_error(patch(zone, {"position": 1}), 400, "provided tier position is out of range")
    assert_error(patch(label, {"analysis_enabled": True}), 400, "only zones support modifying analysis_enabled")
    assert_error(patch(tier_zero, {"analysis_enabled": False}), 403, "tier zero analysis_enabled cannot be modified")
    assert_error(patch(zone, {"analysis_enabled": False}), 403,
                 "multi-tier analysis is not enabled for privilege zones")
    assert_error(patch(label, {"glyph": "star"}), 400, "only zones support custom glyphs")
    assert_error(patch(tier_zero, {"glyph": "star"}), 400, "tier zero glyph cannot be modified")
    assert_error(patch(zone, {"glyph": "gem"}), 400, "glyphs similar to tier zero or owned not allowed")
    assert_error(patch(zone, {}), 400, "no valid fields specified")
    assert_error(patch(zone, {"unknown": 1}), 400, "no valid fields specified")
    assert_error(patch(zone, {"name": "Label One"}), 409, "asset group tag name must be unique")
    assert_error(admin.patch(f"{TAGS}/{zone}", content=b"{not json", headers={"Content-Type": "application/json"}),
                 400, "error unmarshalling JSON payload")
    second = create_zone(admin, "Tier Two", glyph="star")["id"]
    assert_error(patch(zone, {"glyph": "star"}), 409, "asset group tag glyph must be unique")
    # Nothing changed by any of the refused requests.
    unchanged = admin.get(f"{TAGS}/{zone}").json()["data"]["tag"]
    assert (unchanged["name"], unchanged["position"], unchanged["glyph"]) == ("Tier One", 2, None)
    assert admin.get(f"{TAGS}/{second}").json()["data"]["tag"]["position"] == 3


def test_patch_changes_only_given_fields_and_requests_analysis(admin: httpx.Client, zones: Database,
                                                               analyse: Analyse) -> None:
    tier_zero = tag_id(admin, "Tier Zero")
    same = admin.patch(f"{TAGS}/{tier_zero}", json={"name": "Tier Zero", "position": 1})
    assert same.status_code == 200 and same.json()["data"]["name"] == "Tier Zero"
    assert not analyse()  # nothing changed: no analysis
    one, two = create_zone(admin, "Tier One")["id"], create_zone(admin, "Tier Two")["id"]
    response = admin.patch(f"{TAGS}/{two}", json={"position": 2, "description": "second"})
    assert response.status_code == 200, response.text
    assert_matches_spec_plain(response)
    body = response.json()["data"]
    assert (body["position"], body["description"], body["name"]) == (2, "second", "Tier Two")
    assert admin.get(f"{TAGS}/{one}").json()["data"]["tag"]["position"] == 3
    assert analyse()
    renamed = admin.patch(f"{TAGS}/{one}", json={"name": "Tier Three", "glyph": "star", "require_certify": True})
    assert renamed.status_code == 200, renamed.text
    assert renamed.json()["data"]["glyph"] == "star" and renamed.json()["data"]["require_certify"] is True
    cleared = admin.patch(f"{TAGS}/{one}", json={"glyph": ""})
    assert cleared.json()["data"]["glyph"] is None
    history = admin.get("/api/v2/asset-group-tags-history").json()
    assert {record["action"] for record in history["data"]["records"]} >= {"CreateTag", "UpdateTag"}
    me = admin.get("/api/v2/self").json()["data"]["id"]
    assert all(record["actor"] == me for record in history["data"]["records"])


def assert_matches_spec_plain(response: httpx.Response) -> None:
    """The tag as the spec draws it, its nullable values plain as BloodHound servers send them."""
    assert_matches_spec(response, "/api/v2/asset-group-tags/{asset_group_tag_id}")


def test_create_and_delete_zones(admin: httpx.Client, zones: Database, analyse: Analyse) -> None:
    load_graph(zones, [("S-1-5-21-1-1400", "Computer", {})], [])
    zone = create_zone(admin, "Servers", description="member servers")
    assert zone["position"] == 2 and zone["kind_id"] > 0 and zone["require_certify"] is False
    assert_error(admin.post(TAGS, json={"name": "Servers", "type": 1}), 409, "asset group tag name must be unique")
    assert_error(admin.post(TAGS, json={"name": "Bad-Name", "type": 1}), 400,
                 "asset group tag name must contain only alphanumeric characters, spaces, and underscores")
    assert_error(admin.post(TAGS, json={"name": "Mine", "type": 3}), 400, "valid tag_type is required")
    assert_error(admin.post(TAGS, json={"name": "Mine", "type": 2, "position": 2}), 400,
                 "only zones support modifying position")
    assert_error(admin.post(TAGS, json={"type": 1}), 400, "missing required field: name")
    selector = admin.post(f"{TAGS}/{zone['id']}/selectors",
                          json={"name": "pc", "seeds": [{"type": 1, "value": "S-1-5-21-1-1400"}]})
    assert selector.status_code == 201, selector.text
    assert analyse()
    assert tagged(zones, "Tag_Servers") == {"S-1-5-21-1-1400"}
    assert_error(admin.delete(f"{TAGS}/{tag_id(admin, 'Tier Zero')}"), 403, "cannot delete a default asset group tag")
    deleted = admin.delete(f"{TAGS}/{zone['id']}")
    assert deleted.status_code == 204 and deleted.content == b""
    assert_error(admin.get(f"{TAGS}/{zone['id']}"), 404, "resource not found")
    assert analyse()
    assert tagged(zones, "Tag_Servers") == set()
    # The name is free again.
    assert create_zone(admin, "Servers")["position"] == 2


def test_read_only_users_read_but_do_not_change(live_server: LiveServer, zones: Database, admin: httpx.Client) -> None:
    tier_zero = tag_id(admin, "Tier Zero")
    with account(live_server, zones, "Read-Only") as reader:
        assert reader.http.get(TAGS).status_code == 200
        assert reader.http.get(f"{TAGS}/{tier_zero}/selectors").status_code == 200
        assert reader.http.get("/api/v2/asset-groups").status_code == 200
        assert_error(reader.http.patch(f"{TAGS}/{tier_zero}", json={"description": "x"}), 403, "not authorized")
        assert_error(reader.http.post(f"{TAGS}/{tier_zero}/selectors",
                                      json={"name": "x", "seeds": [{"type": 1, "value": "A"}]}), 403)
        assert_error(reader.http.post("/api/v2/custom-nodes", json={"custom_types": {}}), 403)
    assert admin.get(f"{TAGS}/{tier_zero}").json()["data"]["tag"]["description"] == "Tier Zero"
