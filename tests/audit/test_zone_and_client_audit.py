"""Privilege zone and collection client changes in the audit log, under the reference's action names where it
has them (`CreateAssetGroupTag...`, `CreateClient`, `ReplaceClientToken`)."""

from __future__ import annotations

import uuid

import httpx
import pytest

from houndgraph.db import Database
from tests.asset_group_tag.conftest import TAGS, zones  # noqa: F401 - zone tables back to their defaults
from tests.audit.test_audit_logs import logs
from tests.client.helpers import SESSIONS_ONLY, create_client, due_soon
from tests.factories import unique


def my_entries(admin: httpx.Client, count: int) -> list[dict]:
    """This actor's newest `count` entries, oldest first."""
    me = admin.get("/api/v2/self").json()["data"]
    return logs(admin, actor_id=f"eq:{me['id']}", sort_by="-id", limit=str(count))[::-1]


def test_zone_changes_are_audited(admin: httpx.Client, zones: Database) -> None:  # noqa: F811
    name = unique("audited zone").replace("-", " ")
    tag = admin.post(TAGS, json={"name": name, "type": 2, "description": "audited"}).json()["data"]
    assert admin.patch(f"{TAGS}/{tag['id']}", json={"description": "changed"}).status_code == 200
    selectors = f"{TAGS}/{tag['id']}/selectors"
    selector = admin.post(selectors, json={"name": "by id", "seeds": [{"type": 1, "value": "S-1-5-21-1-500"}]})
    assert selector.status_code == 201, selector.text
    selector_id = selector.json()["data"]["id"]
    assert admin.patch(f"{selectors}/{selector_id}", json={"description": "changed"}).status_code == 200
    assert admin.delete(f"{selectors}/{selector_id}").status_code == 204
    refused = admin.post(f"{TAGS}/certifications", json={"member_ids": [987654321], "action": 2})
    assert refused.status_code == 404
    assert admin.delete(f"{TAGS}/{tag['id']}").status_code == 204

    entries = my_entries(admin, 7)
    assert [(e["action"], e["status"]) for e in entries] == [
        ("CreateAssetGroupTag", "success"), ("UpdateAssetGroupTag", "success"),
        ("CreateAssetGroupTagSelector", "success"), ("UpdateAssetGroupTagSelector", "success"),
        ("DeleteAssetGroupTagSelector", "success"), ("CertifyAssetGroupTagMembers", "failure"),
        ("DeleteAssetGroupTag", "success")]
    created, updated, new_selector, _, deleted_selector, certification, deleted = (e["fields"] for e in entries)
    assert created["asset_group_tag_id"] == tag["id"] and created["name"] == name
    assert updated["asset_group_tag_id"] == str(tag["id"]) and updated["method"] == "PATCH"
    assert new_selector["asset_group_tag_selector_id"] == selector_id and new_selector["name"] == "by id"
    assert deleted_selector["asset_group_tag_selector_id"] == str(selector_id)
    assert certification["member_ids"] == [987654321] and certification["error"] == "no member with id 987654321"
    assert deleted["path"] == f"{TAGS}/{tag['id']}"


def test_a_refused_zone_is_audited_with_the_name_asked_for(admin: httpx.Client, zones: Database) -> None:  # noqa: F811
    assert admin.post(TAGS, json={"name": "Tier Zero", "type": 1}).status_code == 409
    [entry] = my_entries(admin, 1)
    assert (entry["action"], entry["status"]) == ("CreateAssetGroupTag", "failure")
    assert entry["fields"]["name"] == "Tier Zero" and entry["fields"]["error"] == "asset group tag name must be unique"


def test_client_schedule_and_job_changes_are_audited(admin: httpx.Client) -> None:
    client = create_client(admin)
    assert admin.put(f"/api/v2/clients/{client['id']}", json={"name": unique("renamed")}).status_code == 200
    assert admin.put(f"/api/v2/clients/{client['id']}/token").status_code == 200
    event = admin.post("/api/v2/events", json={"client_id": client["id"], "rrule": due_soon(7200), **SESSIONS_ONLY})
    assert event.status_code == 200, event.text
    event_id = event.json()["data"]["id"]
    assert admin.put(f"/api/v2/events/{event_id}", json={"client_id": client["id"], "rrule": due_soon(3600),
                                                          **SESSIONS_ONLY}).status_code == 200
    assert admin.delete(f"/api/v2/events/{event_id}").status_code == 200
    job = admin.post(f"/api/v2/clients/{client['id']}/jobs", json=SESSIONS_ONLY).json()["data"]
    assert admin.put(f"/api/v2/jobs/{job['id']}/cancel").status_code == 200
    assert admin.delete(f"/api/v2/clients/{client['id']}").status_code == 200

    entries = my_entries(admin, 9)
    assert [e["action"] for e in entries] == [
        "CreateClient", "UpdateClient", "ReplaceClientToken", "CreateClientSchedule", "UpdateClientSchedule",
        "DeleteClientSchedule", "CreateClientJob", "CancelClientJob", "DeleteClient"]
    assert all(e["status"] == "success" and e["actor_name"] == "admin" for e in entries)
    fields = [e["fields"] for e in entries]
    assert fields[0]["client_id"] == client["id"] and fields[0]["name"] == client["name"]
    assert all(f["client_id"] == client["id"] for f in fields[1:3] + fields[8:])
    assert fields[3]["event_id"] == event_id and fields[3]["client_id"] == client["id"]
    assert fields[5]["event_id"] == str(event_id)
    assert fields[6]["job_id"] == job["id"] and fields[7]["job_id"] == str(job["id"])
    assert not any("key" in f or "token" in f for f in fields), "no secret in the log"


@pytest.mark.parametrize("path", ["/api/v2/clients/not-a-uuid", "/api/v2/events/not-a-number"])
def test_a_refused_client_change_is_audited_as_a_failure(admin: httpx.Client, path: str) -> None:
    assert admin.delete(path).status_code in (400, 404)
    [entry] = my_entries(admin, 1)
    assert entry["status"] == "failure" and entry["fields"]["path"] == path and entry["fields"]["error"]


def test_custom_node_kinds_and_legacy_selector_edits_are_audited(admin: httpx.Client, zones: Database) -> None:  # noqa: F811
    kind = f"Audited{uuid.uuid4().hex[:8]}"
    icon = {"icon": {"type": "font-awesome", "name": "user", "color": "#FF0000"}}
    assert admin.post("/api/v2/custom-nodes", json={"custom_types": {kind: icon}}).status_code == 201
    assert admin.put(f"/api/v2/custom-nodes/{kind}", json={"config": icon}).status_code == 200
    assert admin.delete(f"/api/v2/custom-nodes/{kind}").status_code == 200
    groups = admin.get("/api/v2/asset-groups").json()["data"]["asset_groups"]
    owned = next(group["id"] for group in groups if group["tag"] == "owned")
    bad_spec = [{"selector_name": "x", "sid": "S-1-5-21-1-1100", "action": "pwn"}]
    assert admin.put(f"/api/v2/asset-groups/{owned}/selectors", json=bad_spec).status_code == 400

    entries = my_entries(admin, 4)
    assert [(e["action"], e["status"]) for e in entries] == [
        ("CreateCustomNodeKind", "success"), ("UpdateCustomNodeKind", "success"),
        ("DeleteCustomNodeKind", "success"), ("UpdateAssetGroupSelectors", "failure")]
    assert entries[1]["fields"]["kind_name"] == kind and entries[3]["fields"]["asset_group_id"] == str(owned)
