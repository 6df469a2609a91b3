"""The fields of a user the reference's UI reads at every load: `AuthSecret`, `all_environments`,
`environment_targeted_access_control` (on `/self` and `/bloodhound-users`)."""

from __future__ import annotations

from datetime import datetime

import httpx

from tests.factories import PASSWORD, bearer, create_user

SECRET_KEYS = {"id", "digest_method", "expires_at", "totp_activated", "created_at", "updated_at", "deleted_at"}


def test_self_carries_the_password_secret_without_its_digest(admin: httpx.Client) -> None:
    me = admin.get("/api/v2/self").json()["data"]
    secret = me["AuthSecret"]
    assert set(secret) == SECRET_KEYS
    assert secret["digest_method"] == "argon2" and secret["totp_activated"] is False
    assert datetime.fromisoformat(secret["expires_at"])
    assert me["all_environments"] is True and me["environment_targeted_access_control"] == []


def test_a_user_without_a_password_has_a_null_secret(admin: httpx.Client) -> None:
    user = create_user(admin, password=None)
    assert user["AuthSecret"] is None
    listed = {u["id"]: u for u in admin.get("/api/v2/bloodhound-users").json()["data"]["users"]}
    assert listed[user["id"]]["AuthSecret"] is None
    assert admin.get(f"/api/v2/bloodhound-users/{user['id']}").json()["data"]["AuthSecret"] is None


def test_users_listed_and_fetched_carry_their_secret(admin: httpx.Client) -> None:
    user = create_user(admin)
    assert set(user["AuthSecret"]) == SECRET_KEYS
    fetched = admin.get(f"/api/v2/bloodhound-users/{user['id']}").json()["data"]
    assert fetched["AuthSecret"]["id"] == user["AuthSecret"]["id"]
    assert "digest" not in fetched["AuthSecret"] and "totp_secret" not in fetched["AuthSecret"]
    listed = {u["id"]: u for u in admin.get("/api/v2/bloodhound-users").json()["data"]["users"]}
    assert listed[user["id"]]["AuthSecret"]["expires_at"] == user["AuthSecret"]["expires_at"]
    assert listed[user["id"]]["all_environments"] is True


def test_self_shows_a_changed_password_at_once(admin: httpx.Client) -> None:
    user = create_user(admin)
    headers = bearer(admin, user["principal_name"])
    before = admin.get("/api/v2/self", headers=headers).json()["data"]["AuthSecret"]["expires_at"]
    changed = admin.put(f"/api/v2/bloodhound-users/{user['id']}/secret", headers=headers,
                        json={"secret": PASSWORD + "x", "current_secret": PASSWORD})
    assert changed.status_code == 200, changed.text
    after = admin.get("/api/v2/self", headers=headers).json()["data"]["AuthSecret"]["expires_at"]
    assert after != before
