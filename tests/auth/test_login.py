import uuid

import httpx

from tests.conftest import ADMIN_PASSWORD


def assert_error(response: httpx.Response, status: int, message: str | None = None) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"http_status", "timestamp", "request_id", "errors"}
    assert body["http_status"] == status
    assert body["request_id"] == response.headers["RequestID"]
    uuid.UUID(body["request_id"])
    if message is not None:
        assert body["errors"][0]["message"] == message, body
    return body


def test_admin_logs_in_and_reads_self(client: httpx.Client) -> None:
    response = client.post("/api/v2/login", json={"login_method": "secret", "username": "admin",
                                                  "secret": ADMIN_PASSWORD})
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["auth_expired"] is False
    me = client.get("/api/v2/self", headers={"Authorization": f"Bearer {data['session_token']}"})
    assert me.status_code == 200
    assert me.json()["data"]["principal_name"] == "admin"
    assert me.json()["data"]["id"] == data["user_id"]
    assert [r["name"] for r in me.json()["data"]["roles"]] == ["Administrator"]


def test_wrong_password_is_401_with_the_error_body(client: httpx.Client) -> None:
    response = client.post("/api/v2/login", json={"login_method": "secret", "username": "admin",
                                                  "secret": "wrong-password"})
    assert_error(response, 401)


def test_logout_revokes_the_session(client: httpx.Client, admin_token: str) -> None:
    headers = {"Authorization": f"Bearer {admin_token}"}
    assert client.get("/api/v2/self", headers=headers).status_code == 200
    assert client.post("/api/v2/logout", headers=headers).status_code == 200
    assert_error(client.get("/api/v2/self", headers=headers), 401)


def test_no_credentials_is_401(client: httpx.Client) -> None:
    assert_error(client.get("/api/v2/self"), 401, "not authenticated")


def test_malformed_json_is_400(client: httpx.Client) -> None:
    response = client.post("/api/v2/login", content=b"{not json", headers={"Content-Type": "application/json"})
    assert_error(response, 400, "error unmarshalling JSON payload")


def test_malformed_prefer_wait_is_400_and_other_preferences_are_ignored(client: httpx.Client,
                                                                          admin_token: str) -> None:
    headers = {"Authorization": f"Bearer {admin_token}"}
    assert_error(client.get("/api/v2/self", headers={**headers, "Prefer": "wait=soon"}), 400)
    assert client.get("/api/v2/self", headers={**headers, "Prefer": "0"}).status_code == 200
    assert client.get("/api/v2/self", headers={**headers, "Prefer": "wait=5"}).status_code == 200


def test_login_and_self_match_the_upstream_schema(client: httpx.Client) -> None:
    from tests.openapi import assert_matches_spec

    response = client.post("/api/v2/login", json={"login_method": "secret", "username": "admin",
                                                  "secret": ADMIN_PASSWORD})
    assert_matches_spec(response, "/api/v2/login")
    token = response.json()["data"]["session_token"]
    me = client.get("/api/v2/self", headers={"Authorization": f"Bearer {token}"})
    assert_matches_spec(me, "/api/v2/self")
    assert_matches_spec(client.get("/api/v2/self"), "/api/v2/self")
