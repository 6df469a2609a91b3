"""PUT /api/v2/bloodhound-users/{user_id}/secret: one's own password, and an administrator's reset."""

from __future__ import annotations

import uuid

import httpx

from tests.conftest import ADMIN_PASSWORD
from tests.factories import PASSWORD, bearer, create_user, user_with_role
from tests.user.helpers import assert_error

NEW_PASSWORD = "An0ther-Good-Secret?"


def can_log_in(client: httpx.Client, principal: str, password: str) -> bool:
    response = client.post("/api/v2/login", json={"login_method": "secret", "username": principal,
                                                  "secret": password})
    return response.status_code == 200


def test_users_change_their_own_secret_with_the_current_one(admin: httpx.Client) -> None:
    user, headers = user_with_role(admin, "Read-Only")
    path = f"/api/v2/bloodhound-users/{user['id']}/secret"
    response = admin.put(path, json={"current_secret": PASSWORD, "secret": NEW_PASSWORD}, headers=headers)
    assert response.status_code == 200 and response.content == b""
    assert can_log_in(admin, user["principal_name"], NEW_PASSWORD)
    assert not can_log_in(admin, user["principal_name"], PASSWORD)


def test_own_secret_needs_the_right_current_secret(admin: httpx.Client) -> None:
    user, headers = user_with_role(admin, "User")
    path = f"/api/v2/bloodhound-users/{user['id']}/secret"
    assert_error(admin.put(path, json={"current_secret": "wrong", "secret": NEW_PASSWORD}, headers=headers),
                 403, "Invalid current password")
    assert_error(admin.put(path, json={"secret": NEW_PASSWORD}, headers=headers), 403, "Invalid current password")
    assert can_log_in(admin, user["principal_name"], PASSWORD)


def test_administrators_too_give_their_current_secret_for_their_own(admin: httpx.Client) -> None:
    me = admin.get("/api/v2/self").json()["data"]
    path = f"/api/v2/bloodhound-users/{me['id']}/secret"
    assert_error(admin.put(path, json={"current_secret": "nope", "secret": NEW_PASSWORD}), 403,
                 "Invalid current password")
    assert can_log_in(admin, "admin", ADMIN_PASSWORD)


def test_administrators_reset_other_users_secrets(admin: httpx.Client) -> None:
    user = create_user(admin)
    path = f"/api/v2/bloodhound-users/{user['id']}/secret"
    response = admin.put(path, json={"secret": NEW_PASSWORD, "needs_password_reset": True})
    assert response.status_code == 200
    login = admin.post("/api/v2/login", json={"login_method": "secret", "username": user["principal_name"],
                                              "secret": NEW_PASSWORD})
    assert login.status_code == 200 and login.json()["data"]["auth_expired"] is True


def test_non_admins_may_not_set_other_users_secrets(admin: httpx.Client) -> None:
    victim = create_user(admin)
    _, headers = user_with_role(admin, "Power User")
    path = f"/api/v2/bloodhound-users/{victim['id']}/secret"
    assert_error(admin.put(path, json={"secret": NEW_PASSWORD}, headers=headers), 403,
                 f"not authorized for {victim['id']}")
    assert can_log_in(admin, victim["principal_name"], PASSWORD)


def test_upload_only_users_lack_manage_self(admin: httpx.Client) -> None:
    user, headers = user_with_role(admin, "Upload-Only")
    path = f"/api/v2/bloodhound-users/{user['id']}/secret"
    assert_error(admin.put(path, json={"current_secret": PASSWORD, "secret": NEW_PASSWORD}, headers=headers),
                 403, "not authorized")


def test_secret_errors(admin: httpx.Client) -> None:
    user = create_user(admin)
    path = f"/api/v2/bloodhound-users/{user['id']}/secret"
    assert_error(admin.put(path, json={"secret": "weak"}), 400, "password must be at least 12 characters long")
    assert_error(admin.put(path, json={}), 400, "missing required field: secret")
    assert_error(admin.put("/api/v2/bloodhound-users/x/secret", json={"secret": NEW_PASSWORD}), 400,
                 "id is malformed")
    assert_error(admin.put(f"/api/v2/bloodhound-users/{uuid.uuid4()}/secret", json={"secret": NEW_PASSWORD}),
                 404, "resource not found")
    assert can_log_in(admin, user["principal_name"], PASSWORD)


def test_changing_ones_secret_clears_a_pending_reset(admin: httpx.Client) -> None:
    user = create_user(admin, needs_password_reset=True)
    headers = bearer(admin, user["principal_name"])
    path = f"/api/v2/bloodhound-users/{user['id']}/secret"
    changed = admin.put(path, json={"current_secret": PASSWORD, "secret": NEW_PASSWORD}, headers=headers)
    assert changed.status_code == 200
    login = admin.post("/api/v2/login", json={"login_method": "secret", "username": user["principal_name"],
                                              "secret": NEW_PASSWORD})
    assert login.json()["data"]["auth_expired"] is False


def test_an_administrator_expires_a_users_secret(admin: httpx.Client) -> None:
    """DELETE .../secret: the password still works once, but the login says it must be changed."""
    user = create_user(admin)
    path = f"/api/v2/bloodhound-users/{user['id']}/secret"
    response = admin.delete(path)
    assert response.status_code == 200 and response.content == b""
    login = admin.post("/api/v2/login", json={"login_method": "secret", "username": user["principal_name"],
                                              "secret": PASSWORD})
    assert login.status_code == 200 and login.json()["data"]["auth_expired"] is True


def test_expiring_a_secret_takes_user_management(admin: httpx.Client) -> None:
    user, headers = user_with_role(admin, "User")
    assert_error(admin.delete(f"/api/v2/bloodhound-users/{user['id']}/secret", headers=headers), 403)
    assert_error(admin.delete("/api/v2/bloodhound-users/not-a-uuid/secret"), 400, "id is malformed")
    assert_error(admin.delete(f"/api/v2/bloodhound-users/{uuid.uuid4()}/secret"), 404)


def _self_status(admin: httpx.Client, headers: dict[str, str]) -> int:
    return admin.get("/api/v2/self", headers=headers).status_code


def test_changing_ones_password_ends_ones_other_sessions(admin: httpx.Client) -> None:
    # A stolen token, a forgotten browser: changing the password is how a user shuts them out.
    user, headers = user_with_role(admin, "Read-Only")
    elsewhere = bearer(admin, user["principal_name"])
    path = f"/api/v2/bloodhound-users/{user['id']}/secret"
    changed = admin.put(path, json={"current_secret": PASSWORD, "secret": NEW_PASSWORD}, headers=headers)
    assert changed.status_code == 200
    assert _self_status(admin, elsewhere) == 401
    assert _self_status(admin, headers) == 200  # the session it was changed from


def test_an_administrators_reset_ends_all_the_users_sessions(admin: httpx.Client) -> None:
    user, headers = user_with_role(admin, "Read-Only")
    assert _self_status(admin, headers) == 200
    response = admin.put(f"/api/v2/bloodhound-users/{user['id']}/secret", json={"secret": NEW_PASSWORD})
    assert response.status_code == 200
    assert _self_status(admin, headers) == 401
