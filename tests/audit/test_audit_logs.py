"""GET /api/v2/audit, and the entries that security-relevant actions write."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx

from tests.factories import PASSWORD, create_user, unique, user_with_role
from tests.user.helpers import assert_error


def logs(admin: httpx.Client, **params: str) -> list[dict]:
    response = admin.get("/api/v2/audit", params=params)
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"count", "skip", "limit", "data"}
    return body["data"]["logs"]


def test_logins_are_audited_whether_they_succeed_or_fail(admin: httpx.Client) -> None:
    user = create_user(admin)
    name = user["principal_name"]
    bad = admin.post("/api/v2/login", json={"login_method": "secret", "username": name, "secret": "wrong"})
    assert bad.status_code == 401
    good = admin.post("/api/v2/login", json={"login_method": "secret", "username": name, "secret": PASSWORD})
    assert good.status_code == 200
    entries = logs(admin, action="eq:LoginAttempt", sort_by="id")
    mine = [e for e in entries if e["fields"].get("username") == name]
    assert [e["status"] for e in mine] == ["failure", "success"]
    assert mine[0]["fields"]["error"] == "Your username or password is incorrect"
    assert mine[1]["actor_id"] == user["id"] and mine[1]["actor_name"] == name
    assert mine[1]["request_id"] == good.headers["RequestID"]


def test_user_and_token_changes_are_audited_with_their_actor(admin: httpx.Client) -> None:
    me = admin.get("/api/v2/self").json()["data"]
    user = create_user(admin)
    token = admin.post("/api/v2/tokens", json={"token_name": unique("audited")}).json()["data"]
    assert admin.delete(f"/api/v2/tokens/{token['id']}").status_code == 200
    assert admin.delete(f"/api/v2/bloodhound-users/{user['id']}").status_code == 200
    recent = logs(admin, actor_id=f"eq:{me['id']}", status="eq:success", sort_by="-id", limit="20")
    actions = [e["action"] for e in recent]
    assert actions[:3] == ["DeleteUser", "DeleteAuthToken", "CreateAuthToken"]
    assert recent[0]["fields"]["user_id"] == user["id"]
    assert recent[1]["fields"]["token_id"] == token["id"]
    assert all(e["actor_name"] == "admin" for e in recent[:3])


def test_a_refused_change_is_audited_as_a_failure(admin: httpx.Client) -> None:
    me = admin.get("/api/v2/self").json()["data"]
    assert_error(admin.delete(f"/api/v2/bloodhound-users/{me['id']}"), 400)
    [entry] = logs(admin, action="eq:DeleteUser", status="eq:failure", sort_by="-id", limit="1")
    assert entry["fields"]["user_id"] == me["id"] and entry["fields"]["error"] == "User cannot delete themselves"


def test_paging_window_and_sorting(admin: httpx.Client) -> None:
    for _ in range(3):
        create_user(admin)
    page = admin.get("/api/v2/audit", params={"action": "eq:CreateUser", "skip": "1", "limit": "2"}).json()
    assert page["skip"] == 1 and page["limit"] == 2 and len(page["data"]["logs"]) == 2 and page["count"] >= 3
    ids = [e["id"] for e in logs(admin, action="eq:CreateUser")]
    assert ids == sorted(ids, reverse=True), "newest first by default"
    future = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    assert logs(admin, after=future, before=(datetime.now(UTC) + timedelta(days=2)).isoformat()) == []
    assert_error(admin.get("/api/v2/audit", params={"sort_by": "fields"}), 400)
    assert_error(admin.get("/api/v2/audit", params={"nosuchcolumn": "eq:1"}), 400)
    assert_error(admin.get("/api/v2/audit", params={"before": "yesterday"}), 400,
                 "invalid RFC-3339 datetime format: [yesterday]")


def test_reading_the_audit_log_takes_audit_log_read(admin: httpx.Client) -> None:
    _, headers = user_with_role(admin, "Power User")
    assert_error(admin.get("/api/v2/audit", headers=headers), 403)
