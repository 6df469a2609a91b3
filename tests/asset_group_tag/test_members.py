"""Members, previews, search, certification (op 4) and history over HTTP; owned marking as bhshell and
openhound do it; `isTierZero` in graph answers following Tier Zero membership."""

from __future__ import annotations

import httpx
import pytest

from houndgraph.db import Database
from tests.asset_group_tag.conftest import TAGS, Analyse, D, graph_id, tag_id, tagged
from tests.auth.test_login import assert_error
from tests.openapi import assert_matches_spec

CYPHER = "/api/v2/graphs/cypher"


def members_url(http: httpx.Client, tag: str = "Tier Zero") -> str:
    return f"{TAGS}/{tag_id(http, tag)}/members"


def test_members_list_counts_and_info(admin: httpx.Client, domain: Database) -> None:
    url = members_url(admin)
    response = admin.get(url)
    assert response.status_code == 200
    assert_matches_spec(response, "/api/v2/asset-group-tags/{asset_group_tag_id}/members")
    body = response.json()
    members = {member["object_id"]: member for member in body["data"]["members"]}
    assert body["count"] == 5 and body["limit"] == 50 and body["skip"] == 0
    assert set(members) == {D, f"{D}-512", f"{D}-1100", f"{D}-1200", f"{D}-1101"}
    assert members[f"{D}-512"]["source"] == 1 and members[f"{D}-1101"]["source"] == 2
    assert members[f"{D}-1100"]["primary_kind"] == "User" and members[f"{D}-1100"]["environment_id"] == D
    assert [m["id"] for m in body["data"]["members"]] == sorted(m["id"] for m in body["data"]["members"])
    by_name = admin.get(url, params={"sort_by": "-name", "name": "~eq:@D"}).json()["data"]["members"]
    assert [m["name"] for m in by_name] == ["NESTED@D", "BOB@D", "ALICE@D"]
    assert [m["name"] for m in admin.get(url, params={"primary_kind": "eq:User"}).json()["data"]["members"]] \
        == ["ALICE@D", "BOB@D"]
    assert admin.get(url, params={"environments": "S-1-5-21-0"}).json()["count"] == 0
    assert_error(admin.get(url, params={"sort_by": "kind"}), 400, "column format does not support sorting: kind")
    counts = admin.get(f"{url}/counts")
    assert counts.json() == {"data": {"total_count": 5, "counts": {"Domain": 1, "Group": 2, "User": 2}}}
    info = admin.get(f"{url}/{graph_id(domain, f'{D}-1101')}")
    assert info.status_code == 200
    member = info.json()["data"]["member"]
    assert member["properties"]["name"] == "BOB@D" and member["selectors"][0]["name"] == "Domain Admins"
    assert_error(admin.get(f"{url}/{graph_id(domain, f'{D}-1400')}"), 404, "resource not found")
    selector = member["selectors"][0]["id"]
    selected = admin.get(f"{TAGS}/{tag_id(admin, 'Tier Zero')}/selectors/{selector}/members").json()
    assert {m["object_id"] for m in selected["data"]["members"]} == {f"{D}-512", f"{D}-1100", f"{D}-1200",
                                                                       f"{D}-1101"}
    assert admin.get(f"{TAGS}/{tag_id(admin, 'Tier Zero')}/selectors/{selector}/members/counts").json()["data"] == \
        {"total_count": 4, "counts": {"Group": 2, "User": 2}}


@pytest.mark.parametrize(("expansion", "expected"), [
    (0, {f"{D}-512"}),
    (1, {f"{D}-512", f"{D}-1100", f"{D}-1200", f"{D}-1101"}),
    (2, {f"{D}-512", f"{D}-1100", f"{D}-1200", f"{D}-1101"}),
    (3, {f"{D}-512"}),
])
def test_preview_expands_as_asked(admin: httpx.Client, domain: Database, expansion: int, expected: set[str]) -> None:
    response = admin.post(f"{TAGS}/preview-selectors",
                          json={"seeds": [{"type": 1, "value": f"{D}-512"}], "expansion": expansion})
    assert response.status_code == 200, response.text
    members = response.json()["data"]["members"]
    assert {m["object_id"] for m in members} == expected
    assert all(m["source"] == (1 if m["object_id"] == f"{D}-512" else 2) for m in members)


def test_preview_parents_and_errors(admin: httpx.Client, domain: Database) -> None:
    response = admin.post(f"{TAGS}/preview-selectors", params={"limit": 1},
                          json={"seeds": [{"type": 2, "value": "MATCH (n:Computer) RETURN n"}], "expansion": 3})
    assert {m["object_id"] for m in response.json()["data"]["members"]} == {f"{D}-1400"}
    full = admin.post(f"{TAGS}/preview-selectors",
                      json={"seeds": [{"type": 2, "value": "MATCH (n:Computer) RETURN n"}], "expansion": 3})
    assert {(m["object_id"], m["source"]) for m in full.json()["data"]["members"]} == {(f"{D}-1400", 1), ("OU-1", 3)}
    assert_error(admin.post(f"{TAGS}/preview-selectors", json={"seeds": [{"type": 1, "value": "A"}], "expansion": 4}),
                 400, "invalid expansion method")
    assert_error(admin.post(f"{TAGS}/preview-selectors", json={"seeds": []}), 400, "seeds are required")


def test_search(admin: httpx.Client, domain: Database) -> None:
    found = admin.post(f"{TAGS}/search", json={"query": "bob", "tag_type": 1})
    assert found.status_code == 200
    data = found.json()["data"]
    assert [m["name"] for m in data["members"]] == ["BOB@D"] and data["tags"] == []
    tiers = admin.post(f"{TAGS}/search", json={"query": "tier", "tag_type": 1}).json()["data"]
    assert [t["name"] for t in tiers["tags"]] == ["Tier Zero"]
    admins = admin.post(f"{TAGS}/search", json={"query": "admins", "tag_type": 1}).json()["data"]
    assert "Domain Admins" in {s["name"] for s in admins["selectors"]}
    assert admin.post(f"{TAGS}/search", json={"query": "own", "tag_type": 2}).json()["data"]["tags"][0]["name"] == \
        "Owned"
    assert_error(admin.post(f"{TAGS}/search", json={"query": "ab", "tag_type": 1}), 400,
                 "search query must be at least 3 characters long")
    assert_error(admin.post(f"{TAGS}/search", json={"query": "abc", "tag_type": 5}), 400, "valid tag_type is required")


def test_certification_and_require_certify(admin: httpx.Client, domain: Database, analyse: Analyse) -> None:
    tier_zero = tag_id(admin, "Tier Zero")
    assert admin.patch(f"{TAGS}/{tier_zero}", json={"require_certify": True}).status_code == 200
    assert analyse()
    assert tagged(domain, "Tag_Tier_Zero") == set()  # nothing certified yet
    bob, alice = graph_id(domain, f"{D}-1101"), graph_id(domain, f"{D}-1100")
    response = admin.post(f"{TAGS}/certifications", json={"member_ids": [bob, alice], "action": 2, "note": "ok"})
    assert response.status_code == 200, response.text
    assert analyse()
    assert tagged(domain, "Tag_Tier_Zero") == {f"{D}-1101", f"{D}-1100"}
    revoked = admin.post(f"{TAGS}/certifications", json={"member_ids": [alice], "action": 1})
    assert revoked.status_code == 200
    assert analyse()
    assert tagged(domain, "Tag_Tier_Zero") == {f"{D}-1101"}
    listed = admin.get(f"{TAGS}/certifications", params={"certified": "eq:2"})
    assert listed.status_code == 200
    assert_matches_spec(listed, "/api/v2/asset-group-tags/certifications")
    rows = listed.json()["data"]["members"]
    me = admin.get("/api/v2/self").json()["data"]["id"]
    assert [(r["id"], r["certified"], r["certified_by"], r["asset_group_tag_id"]) for r in rows] == \
        [(bob, 2, me, tier_zero)]
    assert admin.get(f"{TAGS}/certifications", params={"certified": "eq:1"}).json()["count"] == 1
    history = admin.get("/api/v2/asset-group-tags-history", params={"action": "~eq:Certify"}).json()
    assert [(r["action"], r["target"], r["note"]) for r in history["data"]["records"]] == [
        ("CertifyNodeRevoked", f"{D}-1100", None), ("CertifyNodeManual", f"{D}-1101", "ok"),
        ("CertifyNodeManual", f"{D}-1100", "ok")]
    searched = admin.post("/api/v2/asset-group-tags-history", json={"query": "revoked"}).json()
    assert searched["count"] == 1


def test_certification_errors_change_nothing(admin: httpx.Client, domain: Database, analyse: Analyse) -> None:
    url = f"{TAGS}/certifications"
    bob = graph_id(domain, f"{D}-1101")
    assert_error(admin.post(url, json={"member_ids": [], "action": 2}), 400)
    assert_error(admin.post(url, json={"member_ids": [bob], "action": 3}), 400,
                 "invalid action: 1 revokes and 2 certifies")
    assert_error(admin.post(url, json={"member_ids": [graph_id(domain, f"{D}-1400")], "action": 2}), 404)
    selectors = admin.get(f"{TAGS}/{tag_id(admin, 'Tier Zero')}/selectors", params={"name": "eq:Domain Admins"})
    selector = selectors.json()["data"]["selectors"][0]["id"]
    admin.patch(f"{TAGS}/{tag_id(admin, 'Tier Zero')}/selectors/{selector}", json={"auto_certify": 1})
    assert analyse()
    assert_error(admin.post(url, json={"member_ids": [bob], "action": 1}), 400,
                 "cannot change certification status for auto-certified members")
    rows = admin.get(url, params={"certified": "eq:3"}).json()
    assert rows["count"] == 4 and all(r["certified_by"] == "BloodHound" for r in rows["data"]["members"])


def test_owned_marking_round_trip(admin: httpx.Client, domain: Database, analyse: Analyse) -> None:
    """What bhshell `owned add` and openhound do: an object-id seed on the Owned tag."""
    owned = tag_id(admin, "Owned")
    response = admin.post(f"{TAGS}/{owned}/selectors", json={"name": f"{D}-1400",
                                                             "seeds": [{"type": 1, "value": f"{D}-1400"}]})
    assert response.status_code == 201
    assert analyse()
    graph = admin.post(CYPHER, json={"query": "MATCH (n:Tag_Owned) RETURN n"})
    assert graph.status_code == 200, graph.text
    nodes = graph.json()["data"]["nodes"]
    assert [node["objectId"] for node in nodes.values()] == [f"{D}-1400"]
    assert all(node["isOwnedObject"] and not node["isTierZero"] for node in nodes.values())
    tier_zero = admin.post(CYPHER, json={"query": f"MATCH (n) WHERE n.objectid = '{D}-1101' RETURN n"})
    assert [node["isTierZero"] for node in tier_zero.json()["data"]["nodes"].values()] == [True]
    admin.delete(f"{TAGS}/{owned}/selectors/{response.json()['data']['id']}")
    assert analyse()
    assert_error(admin.post(CYPHER, json={"query": "MATCH (n:Tag_Owned) RETURN n"}), 404)
