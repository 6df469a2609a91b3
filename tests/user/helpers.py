"""Test helpers shared by the user, token and auth tests: users made over HTTP with unique names."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from houndgraph.db import Database
from tests.conftest import login

PASSWORD = "Quite-Str0ng-Secret!"
ROLE_IDS = {"Administrator": 1, "Power User": 2, "User": 3, "Read-Only": 4, "Upload-Only": 5}


def unique(prefix: str = "user") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def assert_error(response: httpx.Response, status: int, message: str | None = None) -> str:
    """The reference error body with `status`; returns its message."""
    assert response.status_code == status, response.text
    body = response.json()
    assert list(body) == ["http_status", "timestamp", "request_id", "errors"]
    assert body["http_status"] == status
    assert body["request_id"] == response.headers["RequestID"]
    assert len(body["errors"]) == 1 and body["errors"][0]["context"] == ""
    if message is not None:
        assert body["errors"][0]["message"] == message, body
    return body["errors"][0]["message"]


def create_user(admin: httpx.Client, role: str | None = "User", *, password: str | None = PASSWORD,
                **fields: Any) -> dict[str, Any]:
    """A new user (principal, names and email unique unless given); returns `model.user`."""
    principal = fields.pop("principal", None) or unique()
    body: dict[str, Any] = {
        "principal": principal, "first_name": f"First {principal}", "last_name": f"Last {principal}",
        "email_address": f"{principal}@example.test", "roles": [ROLE_IDS[role]] if role else [], **fields,
    }
    if password is not None:
        body["secret"] = password
    response = admin.post("/api/v2/bloodhound-users", json=body)
    assert response.status_code == 200, response.text
    return response.json()["data"]


def bearer(client: httpx.Client, principal: str, password: str = PASSWORD) -> dict[str, str]:
    """Headers that authenticate as `principal` (they override the admin bearer of the `admin` fixture)."""
    return {"Authorization": f"Bearer {login(client, principal, password)}"}


def user_with_role(admin: httpx.Client, role: str) -> tuple[dict[str, Any], dict[str, str]]:
    user = create_user(admin, role)
    return user, bearer(admin, user["principal_name"])


@contextmanager
def api_tokens_disabled(database: Database) -> Iterator[None]:
    """The `auth.api_tokens` parameter switched off for the block (written directly: the config routes
    belong to another domain), then on again."""

    def set_enabled(enabled: bool) -> None:
        with database.connect_raw(autocommit=True) as conn:
            conn.execute(
                "INSERT INTO parameters (key, name, description, value) VALUES ('auth.api_tokens', 'API Tokens', '', "
                "%s::jsonb) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                ('{"enabled": %s}' % ("true" if enabled else "false"),),
            )

    set_enabled(False)
    try:
        yield
    finally:
        set_enabled(True)
