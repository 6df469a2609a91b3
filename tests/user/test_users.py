"""User administration over HTTP: list, create, read, update (roles, disable), delete."""

from __future__ import annotations

import uuid

import httpx

from tests.conftest import LiveServer
from tests.factories import PASSWORD, ROLE_IDS, bearer, create_user, unique, user_with_role
from tests.openapi import assert_matches_spec
from tests.user.helpers import assert_error


def test_create_returns_the_user_without_secrets(admin: httpx.Client) -> None:
    principal = unique()
    response = admin.post("/api/v2/bloodhound-users", json={
        "principal": principal, "first_name": "Ada", "last_name": "Lovelace",
        "email_address": f"{principal}@example.test", "roles": [ROLE_IDS["Power User"]], "secret": PASSWORD,
    })
    assert response.status_code == 200, response.text
    assert_matches_spec(response, "/api/v2/bloodhound-users")
    user = response.json()["data"]
    assert user["principal_name"] == principal
    assert user["first_name"] == "Ada"
    assert user["email_address"] == f"{principal}@example.test"
    assert [role["name"] for role in user["roles"]] == ["Power User"]
    assert user["is_disabled"] is False
    # The secret's metadata (`AuthSecret`: method, expiry) but never the password, its digest or a TOTP secret.
    assert PASSWORD not in response.text and "$argon2" not in response.text
    assert '"digest"' not in response.text and "totp_secret" not in response.text
    # The new user logs in with the secret given.
    me = admin.get("/api/v2/self", headers=bearer(admin, principal))
    assert me.json()["data"]["id"] == user["id"]


def test_needs_password_reset_marks_the_login_as_expired(admin: httpx.Client) -> None:
    user = create_user(admin, needs_password_reset=True)
    response = admin.post("/api/v2/login", json={"login_method": "secret", "username": user["principal_name"],
                                                 "secret": PASSWORD})
    assert response.status_code == 200
    assert response.json()["data"]["auth_expired"] is True


def test_a_user_without_a_secret_cannot_log_in(admin: httpx.Client) -> None:
    user = create_user(admin, password=None)
    response = admin.post("/api/v2/login", json={"login_method": "secret", "username": user["principal_name"],
                                                 "secret": PASSWORD})
    assert_error(response, 401)


def test_create_checks_password_strength(admin: httpx.Client) -> None:
    body = {"principal": unique(), "roles": [ROLE_IDS["User"]]}
    assert_error(admin.post("/api/v2/bloodhound-users", json={**body, "secret": "Short1!"}), 400,
                 "password must be at least 12 characters long")
    assert_error(admin.post("/api/v2/bloodhound-users", json={**body, "secret": "alllowercaseletters"}), 400,
                 "password must mix at least three of: lower case, upper case, digits, symbols")
    # Nothing was created.
    listed = admin.get("/api/v2/bloodhound-users", params={"principal_name": f"eq:{body['principal']}"})
    assert listed.json()["data"]["users"] == []


def test_principal_and_email_must_be_unique(admin: httpx.Client) -> None:
    user = create_user(admin)
    email = user["email_address"]
    for principal in (user["principal_name"], user["principal_name"].upper()):
        response = admin.post("/api/v2/bloodhound-users", json={"principal": principal, "roles": []})
        assert_error(response, 409, "principal name must be unique")
    response = admin.post("/api/v2/bloodhound-users", json={"principal": unique(), "email_address": email.upper()})
    assert_error(response, 409, "email must be unique")
    other = create_user(admin)
    assert_error(admin.patch(f"/api/v2/bloodhound-users/{other['id']}", json={"principal": user["principal_name"]}),
                 409, "principal name must be unique")
    assert_error(admin.patch(f"/api/v2/bloodhound-users/{other['id']}", json={"email_address": email}),
                 409, "email must be unique")


def test_users_without_email_do_not_collide(admin: httpx.Client) -> None:
    create_user(admin, email_address="")
    user = create_user(admin, email_address="")
    assert user["email_address"] is None


def test_create_validation(admin: httpx.Client) -> None:
    assert_error(admin.post("/api/v2/bloodhound-users", json={"roles": []}), 400, "missing required field: principal")
    assert_error(admin.post("/api/v2/bloodhound-users", json={"principal": unique(), "roles": [1, 2]}), 400,
                 "a user can only have one role")
    assert_error(admin.post("/api/v2/bloodhound-users", json={"principal": unique(), "roles": [999]}), 400,
                 "unknown role id: 999")
    assert_error(admin.post("/api/v2/bloodhound-users", content=b"[", headers={"Content-Type": "application/json"}),
                 400, "error unmarshalling JSON payload")


def test_get_user(admin: httpx.Client) -> None:
    user = create_user(admin)
    response = admin.get(f"/api/v2/bloodhound-users/{user['id']}")
    assert response.status_code == 200
    assert response.json()["data"] == user
    assert_error(admin.get("/api/v2/bloodhound-users/nope"), 400, "id is malformed")
    assert_error(admin.get(f"/api/v2/bloodhound-users/{uuid.uuid4()}"), 404, "resource not found")


def test_update_fields_and_role(admin: httpx.Client) -> None:
    user = create_user(admin)
    principal = unique("renamed")
    response = admin.patch(f"/api/v2/bloodhound-users/{user['id']}", json={
        "principal": principal, "first_name": "Grace", "last_name": "", "roles": [ROLE_IDS["Read-Only"]],
    })
    assert response.status_code == 200 and response.content == b""
    updated = admin.get(f"/api/v2/bloodhound-users/{user['id']}").json()["data"]
    assert updated["principal_name"] == principal
    assert updated["first_name"] == "Grace"
    # An empty string leaves a field unchanged, as in the reference.
    assert updated["last_name"] == user["last_name"]
    assert [role["name"] for role in updated["roles"]] == ["Read-Only"]
    # The new role takes effect on the next request.
    headers = bearer(admin, principal)
    assert_error(admin.get("/api/v2/bloodhound-users", headers=headers), 403, "not authorized")


def test_update_errors(admin: httpx.Client) -> None:
    user = create_user(admin)
    assert_error(admin.patch("/api/v2/bloodhound-users/bad", json={}), 400, "id is malformed")
    assert_error(admin.patch(f"/api/v2/bloodhound-users/{uuid.uuid4()}", json={}), 404, "resource not found")
    assert_error(admin.patch(f"/api/v2/bloodhound-users/{user['id']}", json={"roles": [1, 3]}), 400,
                 "a user can only have one role")


def test_disabling_a_user_ends_sessions_and_tokens_at_once(admin: httpx.Client) -> None:
    user = create_user(admin)
    headers = bearer(admin, user["principal_name"])
    assert admin.get("/api/v2/self", headers=headers).status_code == 200

    assert admin.patch(f"/api/v2/bloodhound-users/{user['id']}", json={"is_disabled": True}).status_code == 200
    assert_error(admin.get("/api/v2/self", headers=headers), 401, "Token Authorization failed.")
    login = admin.post("/api/v2/login", json={"login_method": "secret", "username": user["principal_name"],
                                              "secret": PASSWORD})
    assert_error(login, 401)
    assert admin.get(f"/api/v2/bloodhound-users/{user['id']}").json()["data"]["is_disabled"] is True

    assert admin.patch(f"/api/v2/bloodhound-users/{user['id']}", json={"is_disabled": False}).status_code == 200
    # The old session stays ended; a new login works again.
    assert_error(admin.get("/api/v2/self", headers=headers), 401)
    assert admin.get("/api/v2/self", headers=bearer(admin, user["principal_name"])).status_code == 200


def test_users_may_not_disable_demote_or_delete_themselves(admin: httpx.Client) -> None:
    me = admin.get("/api/v2/self").json()["data"]
    assert_error(admin.patch(f"/api/v2/bloodhound-users/{me['id']}", json={"is_disabled": True}), 400,
                 "user attempted to disable themselves")
    assert_error(admin.patch(f"/api/v2/bloodhound-users/{me['id']}", json={"roles": [ROLE_IDS["User"]]}), 400,
                 "user attempted to change own role")
    assert_error(admin.delete(f"/api/v2/bloodhound-users/{me['id']}"), 400, "User cannot delete themselves")
    # Sending one's own role unchanged is fine.
    same_role = admin.patch(f"/api/v2/bloodhound-users/{me['id']}", json={"roles": [ROLE_IDS["Administrator"]]})
    assert same_role.status_code == 200
    assert admin.get("/api/v2/self").json()["data"]["is_disabled"] is False


def test_delete_user(admin: httpx.Client) -> None:
    user = create_user(admin)
    headers = bearer(admin, user["principal_name"])
    response = admin.delete(f"/api/v2/bloodhound-users/{user['id']}")
    assert response.status_code == 200 and response.content == b""
    assert_error(admin.get(f"/api/v2/bloodhound-users/{user['id']}"), 404, "resource not found")
    assert_error(admin.get("/api/v2/self", headers=headers), 401)
    assert_error(admin.delete(f"/api/v2/bloodhound-users/{user['id']}"), 404, "resource not found")
    assert_error(admin.delete("/api/v2/bloodhound-users/123"), 400, "id is malformed")


def test_list_users_sorts_filters_and_matches_the_spec(admin: httpx.Client) -> None:
    tag = unique("list")
    made = [create_user(admin, principal=f"{tag}-{letter}", first_name=f"{tag} {letter}") for letter in "bac"]
    response = admin.get("/api/v2/bloodhound-users", params={"principal_name": f"~eq:{tag}", "sort_by": "-first_name"})
    assert response.status_code == 200
    assert_matches_spec(response, "/api/v2/bloodhound-users")
    names = [user["principal_name"] for user in response.json()["data"]["users"]]
    assert names == [f"{tag}-c", f"{tag}-b", f"{tag}-a"]
    by_id = admin.get("/api/v2/bloodhound-users", params={"id": f"eq:{made[0]['id']}"}).json()["data"]["users"]
    assert [user["id"] for user in by_id] == [made[0]["id"]]
    since = admin.get("/api/v2/bloodhound-users", params={"principal_name": f"~eq:{tag}",
                                                         "created_at": f"gte:{made[0]['created_at']}"})
    assert len(since.json()["data"]["users"]) == 3


def test_list_users_errors(admin: httpx.Client) -> None:
    assert_error(admin.get("/api/v2/bloodhound-users", params={"sort_by": "secret"}), 400,
                 "column format does not support sorting: secret")
    assert_error(admin.get("/api/v2/bloodhound-users", params={"is_disabled": "eq:true"}), 400,
                 "the specified column cannot be filtered: is_disabled")
    assert_error(admin.get("/api/v2/bloodhound-users", params={"last_login": "~eq:x"}), 400,
                 "the specified filter predicate is not supported for this column: last_login ~eq")


def test_read_only_and_user_roles_cannot_administer_users(admin: httpx.Client) -> None:
    target = create_user(admin)
    for role in ("Read-Only", "User", "Power User", "Upload-Only"):
        _, headers = user_with_role(admin, role)
        calls = [
            admin.get("/api/v2/bloodhound-users", headers=headers),
            admin.post("/api/v2/bloodhound-users", json={"principal": unique()}, headers=headers),
            admin.get(f"/api/v2/bloodhound-users/{target['id']}", headers=headers),
            admin.patch(f"/api/v2/bloodhound-users/{target['id']}", json={"is_disabled": True}, headers=headers),
            admin.delete(f"/api/v2/bloodhound-users/{target['id']}", headers=headers),
        ]
        for response in calls:
            assert_error(response, 403, "not authorized")
    assert admin.get(f"/api/v2/bloodhound-users/{target['id']}").json()["data"]["is_disabled"] is False


def test_accepting_the_eula_sets_the_flag_on_the_caller(admin: httpx.Client, live_server: LiveServer) -> None:
    user, headers = user_with_role(admin, "Read-Only")
    response = admin.get("/api/v2/accept-eula", headers=headers)
    assert response.status_code == 202 and response.content == b""
    assert admin.get("/api/v2/self", headers=headers).json()["data"]["eula_accepted"] is True
    with httpx.Client(base_url=live_server.base_url) as anonymous:
        assert_error(anonymous.get("/api/v2/accept-eula"), 401)
