"""Signed requests (`Authorization: bhesignature <token id>`), with signatures built by the test itself."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta, timezone

import httpx
import pytest

from houndgraph.db import Database
from tests.auth.signing import sign, signed_headers
from tests.conftest import ADMIN_PASSWORD, LiveServer
from tests.factories import create_user, logged_in, unique, user_with_role
from tests.user.helpers import api_tokens_disabled, assert_error

PREFIX = "unable to validate request signature for client: "
MISMATCH = PREFIX + "digest validation failed: signature digest mismatch"


@pytest.fixture(scope="module")
def token_owner(live_server: LiveServer) -> tuple[dict, dict[str, str]]:
    """A User-role user and their headers, made once for the module: tests sign with tokens of theirs
    (each test its own, under a unique name) and never change the user."""
    with logged_in(live_server, "admin", ADMIN_PASSWORD) as admin:
        return user_with_role(admin, "User")


@pytest.fixture
def token(admin: httpx.Client, token_owner: tuple[dict, dict[str, str]]) -> dict:
    """A fresh token of `token_owner`: the request it signs runs as that user."""
    user, headers = token_owner
    response = admin.post("/api/v2/tokens", json={"token_name": unique("sig")}, headers=headers)
    assert response.status_code == 200, response.text
    return {**response.json()["data"], "principal": user["principal_name"]}


def signed(client: httpx.Client, token: dict, method: str, uri: str, body: bytes = b"",
           **overrides: str) -> httpx.Response:
    headers = signed_headers(token["id"], token["key"], method, uri, body)
    headers.update(overrides)
    if body:
        headers["Content-Type"] = "application/json"
    return client.request(method, uri, content=body, headers=headers)


def test_get_with_a_query_string(client: httpx.Client, token: dict) -> None:
    uri = f"/api/v2/tokens?sort_by=-name&name=~eq:{token['name'][:10]}"
    response = signed(client, token, "GET", uri)
    assert response.status_code == 200, response.text
    assert [t["id"] for t in response.json()["data"]["tokens"]] == [token["id"]]


def test_the_request_runs_as_the_tokens_owner(client: httpx.Client, token: dict) -> None:
    response = signed(client, token, "GET", "/api/v2/self")
    assert response.status_code == 200
    assert response.json()["data"]["principal_name"] == token["principal"]
    # The owner's role applies: a User may not administer users.
    assert_error(signed(client, token, "GET", "/api/v2/bloodhound-users"), 403, "not authorized")


def test_an_administrators_token_lists_users(admin: httpx.Client, client: httpx.Client) -> None:
    """The first-start story: the admin logs in, creates a token, and a signed request lists users."""
    made = admin.post("/api/v2/tokens", json={"token_name": unique("admin")}).json()["data"]
    anonymous = httpx.Client(base_url=str(client.base_url))
    with anonymous:
        response = signed(anonymous, made, "GET", "/api/v2/bloodhound-users?sort_by=principal_name")
    assert response.status_code == 200, response.text
    assert "admin" in [user["principal_name"] for user in response.json()["data"]["users"]]


def test_post_with_a_json_body(client: httpx.Client, token: dict) -> None:
    name = unique("signed-post")
    body = json.dumps({"token_name": name}).encode()
    response = signed(client, token, "POST", "/api/v2/tokens", body)
    assert response.status_code == 200, response.text
    assert response.json()["data"]["name"] == name
    assert response.json()["data"]["user_id"] == token["user_id"]


def test_an_empty_body_is_signed_too(client: httpx.Client, token: dict) -> None:
    request_date = datetime.now(UTC).isoformat()
    headers = {"Authorization": f"bhesignature {token['id']}", "RequestDate": request_date,
               "Signature": sign(token["key"], "GET", "/api/v2/self", request_date, b"")}
    assert client.get("/api/v2/self", headers=headers).status_code == 200


def test_last_access_is_updated(admin: httpx.Client, client: httpx.Client, token: dict) -> None:
    before = datetime.now(UTC)
    assert signed(client, token, "GET", "/api/v2/self").status_code == 200
    listed = admin.get("/api/v2/tokens", params={"id": f"eq:{token['id']}"}).json()["data"]["tokens"]
    assert datetime.fromisoformat(listed[0]["last_access"]) >= before - timedelta(seconds=1)


def test_a_date_in_another_offset_is_cut_in_that_offset(client: httpx.Client, token: dict) -> None:
    when = datetime.now(timezone(timedelta(hours=5, minutes=30)))
    headers = signed_headers(token["id"], token["key"], "GET", "/api/v2/self", when=when)
    assert client.get("/api/v2/self", headers=headers).status_code == 200


@pytest.mark.parametrize("tamper", ["signature", "body", "path", "query", "method", "key", "hour"])
def test_tampering_is_a_digest_mismatch(client: httpx.Client, token: dict, tamper: str) -> None:
    body = json.dumps({"token_name": "original"}).encode()
    method, uri, key, when = "POST", "/api/v2/tokens?x=1", token["key"], datetime.now(UTC)
    headers = signed_headers(token["id"], key, method, uri, body, when)
    headers["Content-Type"] = "application/json"
    match tamper:
        case "signature":
            headers["Signature"] = signed_headers(token["id"], key, method, uri, b"other", when)["Signature"]
        case "body":
            body = json.dumps({"token_name": "tampered"}).encode()
        case "path":
            headers["Signature"] = signed_headers(token["id"], key, method, "/api/v2/self?x=1", body, when)["Signature"]
        case "query":
            uri = "/api/v2/tokens?x=2"
        case "method":
            headers["Signature"] = signed_headers(token["id"], key, "PUT", uri, body, when)["Signature"]
        case "key":
            wrong_key = ("B" if key[0] == "A" else "A") + key[1:]
            headers["Signature"] = signed_headers(token["id"], wrong_key, method, uri, body, when)["Signature"]
        case "hour":
            # Still within the allowed skew, but signed for another hour than the one sent.
            other = signed_headers(token["id"], key, method, uri, body, when - timedelta(minutes=61))
            headers["Signature"] = other["Signature"]
    response = client.request(method, uri, content=body, headers=headers)
    assert_error(response, 401, MISMATCH)


@pytest.mark.parametrize(("offset", "word"), [(timedelta(hours=2), "ahead"), (-timedelta(hours=2), "behind")])
def test_clock_skew_of_more_than_an_hour(client: httpx.Client, token: dict, offset: timedelta, word: str) -> None:
    headers = signed_headers(token["id"], token["key"], "GET", "/api/v2/self", when=datetime.now(UTC) + offset)
    message = assert_error(client.get("/api/v2/self", headers=headers), 401)
    assert message.startswith(f"{PREFIX}signature too far {word} by 1") and message.endswith(" minutes")


def test_a_skew_under_an_hour_is_accepted(client: httpx.Client, token: dict) -> None:
    headers = signed_headers(token["id"], token["key"], "GET", "/api/v2/self",
                             when=datetime.now(UTC) - timedelta(minutes=55))
    assert client.get("/api/v2/self", headers=headers).status_code == 200


def test_missing_and_malformed_headers(client: httpx.Client, token: dict) -> None:
    good = signed_headers(token["id"], token["key"], "GET", "/api/v2/self")
    without_date = {k: v for k, v in good.items() if k != "RequestDate"}
    assert_error(client.get("/api/v2/self", headers=without_date), 400, "no request date header")
    without_signature = {k: v for k, v in good.items() if k != "Signature"}
    assert_error(client.get("/api/v2/self", headers=without_signature), 400, "no signature header")
    message = assert_error(client.get("/api/v2/self", headers={**good, "RequestDate": "yesterday"}), 400)
    assert message.startswith("malformed request date: ")
    message = assert_error(client.get("/api/v2/self", headers={**good, "Signature": "not*base64"}), 400)
    assert message.startswith("malformed signature header: ")


def test_malformed_and_unknown_token_ids(client: httpx.Client, token: dict) -> None:
    headers = signed_headers("not-a-uuid", token["key"], "GET", "/api/v2/self")
    assert_error(client.get("/api/v2/self", headers=headers), 400, "Token ID is malformed.")
    headers = signed_headers(str(uuid.uuid4()), token["key"], "GET", "/api/v2/self")
    assert assert_error(client.get("/api/v2/self", headers=headers), 401).startswith(PREFIX)


def test_a_deleted_token_is_refused_at_once(admin: httpx.Client, client: httpx.Client, token: dict) -> None:
    assert signed(client, token, "GET", "/api/v2/self").status_code == 200
    assert admin.delete(f"/api/v2/tokens/{token['id']}").status_code == 200
    assert assert_error(signed(client, token, "GET", "/api/v2/self"), 401).startswith(PREFIX)


def test_a_token_can_delete_itself(client: httpx.Client, token: dict) -> None:
    uri = f"/api/v2/tokens/{token['id']}"
    assert signed(client, token, "DELETE", uri).status_code == 200
    assert assert_error(signed(client, token, "GET", "/api/v2/self"), 401).startswith(PREFIX)


def test_a_disabled_owner_is_refused_at_once(admin: httpx.Client, client: httpx.Client) -> None:
    user = create_user(admin)
    made = admin.post("/api/v2/tokens", json={"token_name": "x", "user_id": user["id"]}).json()["data"]
    assert signed(client, made, "GET", "/api/v2/self").status_code == 200
    assert admin.patch(f"/api/v2/bloodhound-users/{user['id']}", json={"is_disabled": True}).status_code == 200
    assert_error(signed(client, made, "GET", "/api/v2/self"), 403, PREFIX + "user disabled")
    assert admin.patch(f"/api/v2/bloodhound-users/{user['id']}", json={"is_disabled": False}).status_code == 200
    assert signed(client, made, "GET", "/api/v2/self").status_code == 200


def test_signed_requests_refused_when_api_tokens_are_disabled(client: httpx.Client, token: dict,
                                                              database: Database) -> None:
    with api_tokens_disabled(database):
        assert_error(signed(client, token, "GET", "/api/v2/self"), 401, PREFIX + "use of API keys has been disabled")
    assert signed(client, token, "GET", "/api/v2/self").status_code == 200


def test_authorization_header_shape(client: httpx.Client) -> None:
    assert_error(client.get("/api/v2/self", headers={"Authorization": "bhesignature"}), 400,
                 "Expected only two components for the Authorization header.")
    assert_error(client.get("/api/v2/self", headers={"Authorization": "Basic abc"}), 400,
                 "Unexpected authorization scheme: Basic.")
