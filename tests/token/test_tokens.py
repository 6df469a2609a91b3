"""API tokens over HTTP: creation (key shown once), listing with ownership rules, deletion (seed op 18)."""

from __future__ import annotations

import base64
import uuid

import httpx

from houndgraph.db import Database
from tests.factories import create_user, unique, user_with_role
from tests.openapi import assert_matches_spec
from tests.user.helpers import api_tokens_disabled, assert_error


def new_token(client: httpx.Client, headers: dict[str, str] | None = None, **body: str) -> dict:
    response = client.post("/api/v2/tokens", json={"token_name": unique("token"), **body}, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()["data"]


def listed_ids(response: httpx.Response) -> list[str]:
    assert response.status_code == 200, response.text
    return [token["id"] for token in response.json()["data"]["tokens"]]


def test_create_returns_the_key_once_in_the_reference_shape(admin: httpx.Client) -> None:
    me = admin.get("/api/v2/self").json()["data"]
    name = unique("token")
    response = admin.post("/api/v2/tokens", json={"token_name": name})
    assert response.status_code == 200, response.text
    assert_matches_spec(response, "/api/v2/tokens")
    token = response.json()["data"]
    uuid.UUID(token["id"])
    assert token["user_id"] == me["id"]
    assert token["name"] == name
    assert token["hmac_method"] == "hmac-sha2-256"
    assert len(token["key"]) == 56 and len(base64.b64decode(token["key"], validate=True)) == 40

    listed = admin.get("/api/v2/tokens", params={"name": f"eq:{name}"})
    assert_matches_spec(listed, "/api/v2/tokens")
    [entry] = listed.json()["data"]["tokens"]
    assert entry["id"] == token["id"] and "key" not in entry


def test_keys_are_random(admin: httpx.Client) -> None:
    assert new_token(admin)["key"] != new_token(admin)["key"]


def test_create_for_another_user_needs_manage_users(admin: httpx.Client) -> None:
    other = create_user(admin)
    made = new_token(admin, user_id=other["id"])
    assert made["user_id"] == other["id"]

    _, headers = user_with_role(admin, "User")
    response = admin.post("/api/v2/tokens", json={"token_name": "x", "user_id": other["id"]}, headers=headers)
    assert_error(response, 403, "missing permission to create tokens for other users")


def test_create_for_oneself_by_id_or_by_omission(admin: httpx.Client) -> None:
    user, headers = user_with_role(admin, "Read-Only")
    assert new_token(admin, headers, user_id=user["id"])["user_id"] == user["id"]
    assert new_token(admin, headers, user_id="")["user_id"] == user["id"]


def test_create_errors(admin: httpx.Client) -> None:
    assert_error(admin.post("/api/v2/tokens", content=b"{nope", headers={"Content-Type": "application/json"}),
                 400, "error unmarshalling JSON payload")
    message = assert_error(admin.post("/api/v2/tokens", json={"token_name": "x", "user_id": "not-a-uuid"}), 400)
    assert message.startswith("error unmarshalling JSON payload")
    assert_error(admin.post("/api/v2/tokens", json={"token_name": "x", "user_id": str(uuid.uuid4())}),
                 400, "unknown user")


def test_create_refused_when_api_tokens_are_disabled(admin: httpx.Client, database: Database) -> None:
    with api_tokens_disabled(database):
        assert_error(admin.post("/api/v2/tokens", json={"token_name": "x"}), 403, "API key creation is disabled")
    assert admin.post("/api/v2/tokens", json={"token_name": "x"}).status_code == 200


def test_upload_only_users_cannot_manage_tokens(admin: httpx.Client) -> None:
    _, headers = user_with_role(admin, "Upload-Only")
    assert_error(admin.post("/api/v2/tokens", json={"token_name": "x"}, headers=headers), 403, "not authorized")
    assert_error(admin.get("/api/v2/tokens", headers=headers), 403, "not authorized")
    assert_error(admin.delete(f"/api/v2/tokens/{uuid.uuid4()}", headers=headers), 403, "not authorized")


def test_non_admins_see_only_their_own_tokens(admin: httpx.Client) -> None:
    user, headers = user_with_role(admin, "User")
    mine = new_token(admin, headers)
    admins = new_token(admin)

    assert listed_ids(admin.get("/api/v2/tokens", headers=headers)) == [mine["id"]]
    own_filter = admin.get("/api/v2/tokens", params={"user_id": f"eq:{user['id']}"}, headers=headers)
    assert listed_ids(own_filter) == [mine["id"]]
    # An administrator sees everyone's, and may filter by any user.
    assert {mine["id"], admins["id"]} <= set(listed_ids(admin.get("/api/v2/tokens")))
    assert listed_ids(admin.get("/api/v2/tokens", params={"user_id": f"eq:{user['id']}"})) == [mine["id"]]


def test_non_admins_may_not_filter_by_another_user(admin: httpx.Client) -> None:
    me = admin.get("/api/v2/self").json()["data"]
    user, headers = user_with_role(admin, "User")
    message = "only admins are able to filter tokens by user_id"
    assert_error(admin.get("/api/v2/tokens", params={"user_id": f"eq:{me['id']}"}, headers=headers), 403, message)
    assert_error(admin.get("/api/v2/tokens", params={"user_id": f"neq:{user['id']}"}, headers=headers), 403, message)


def test_list_sorts_and_filters(admin: httpx.Client) -> None:
    user = create_user(admin)
    prefix = unique("sorted")
    made = [new_token(admin, token_name=f"{prefix}-{letter}", user_id=user["id"]) for letter in "bca"]
    by_name = {token["name"]: token["id"] for token in made}
    query = {"user_id": f"eq:{user['id']}"}

    ascending = listed_ids(admin.get("/api/v2/tokens", params={**query, "sort_by": "name"}))
    assert ascending == [by_name[f"{prefix}-{letter}"] for letter in "abc"]
    descending = listed_ids(admin.get("/api/v2/tokens", params={**query, "sort_by": "-name"}))
    assert descending == ascending[::-1]
    approx = admin.get("/api/v2/tokens", params={**query, "name": f"~eq:{prefix.upper()}-C"})
    assert listed_ids(approx) == [by_name[f"{prefix}-c"]]
    excluded = admin.get("/api/v2/tokens", params={**query, "name": f"neq:{prefix}-c", "sort_by": "name"})
    assert listed_ids(excluded) == [by_name[f"{prefix}-a"], by_name[f"{prefix}-b"]]
    assert listed_ids(admin.get("/api/v2/tokens", params={**query, "hmac_method": "eq:hmac-sha2-256"})) != []


def test_list_errors_use_the_reference_messages(admin: httpx.Client) -> None:
    assert_error(admin.get("/api/v2/tokens", params={"sort_by": "key"}), 400,
                 "column format does not support sorting: key")
    assert_error(admin.get("/api/v2/tokens", params={"sort_by": ""}), 400,
                 "the specified column cannot be sorted because it is empty: ")
    assert_error(admin.get("/api/v2/tokens", params={"key": "eq:abc"}), 400,
                 "the specified column cannot be filtered: key")
    assert_error(admin.get("/api/v2/tokens", params={"user_id": "~eq:abc"}), 400,
                 "the specified filter predicate is not supported for this column: user_id ~eq")
    assert_error(admin.get("/api/v2/tokens", params={"name": "nonsense"}), 400,
                 "there are errors in the query parameter filters specified")
    assert_error(admin.get("/api/v2/tokens", params={"user_id": "eq:not-a-uuid"}), 400,
                 "there are errors in the query parameter filters specified")


def test_delete_own_token_answers_200_with_an_empty_body(admin: httpx.Client) -> None:
    _, headers = user_with_role(admin, "User")
    token = new_token(admin, headers)
    response = admin.delete(f"/api/v2/tokens/{token['id']}", headers=headers)
    assert response.status_code == 200
    assert response.content == b""
    assert_matches_spec(response, "/api/v2/tokens/{token_id}")
    assert listed_ids(admin.get("/api/v2/tokens", headers=headers)) == []
    assert_error(admin.delete(f"/api/v2/tokens/{token['id']}", headers=headers), 404, "resource not found")


def test_delete_errors(admin: httpx.Client) -> None:
    response = admin.delete("/api/v2/tokens/not-a-uuid")
    assert_error(response, 400, "id is malformed")
    assert_matches_spec(response, "/api/v2/tokens/{token_id}")
    response = admin.delete(f"/api/v2/tokens/{uuid.uuid4()}")
    assert_error(response, 404, "resource not found")
    assert_matches_spec(response, "/api/v2/tokens/{token_id}")


def test_only_admins_delete_other_users_tokens(admin: httpx.Client) -> None:
    _, owner_headers = user_with_role(admin, "User")
    _, other_headers = user_with_role(admin, "Power User")
    token = new_token(admin, owner_headers)
    response = admin.delete(f"/api/v2/tokens/{token['id']}", headers=other_headers)
    assert_error(response, 403, "Forbidden")
    assert_matches_spec(response, "/api/v2/tokens/{token_id}")
    assert admin.delete(f"/api/v2/tokens/{token['id']}").status_code == 200
    assert listed_ids(admin.get("/api/v2/tokens", headers=owner_headers)) == []


def test_a_users_tokens_go_with_the_user(admin: httpx.Client) -> None:
    user = create_user(admin)
    token = new_token(admin, user_id=user["id"])
    assert admin.delete(f"/api/v2/bloodhound-users/{user['id']}").status_code == 200
    assert_error(admin.delete(f"/api/v2/tokens/{token['id']}"), 404, "resource not found")
