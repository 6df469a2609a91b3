"""API token expiry (BloodHound 9.x): `auth.api_token_expiration` sets the lifetime of new tokens while the
`api_key_expiration_support` flag is on; an expired token signs nothing."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from houndgraph.db import Database
from tests.auth.signing import signed_headers
from tests.token.test_tokens import new_token
from tests.user.helpers import assert_error

EXPIRATION = "auth.api_token_expiration"


@pytest.fixture
def expiry_supported(database: Database) -> Iterator[None]:
    """The flag on for the test (it is not user updatable: written directly), then off with expiry off again."""
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("UPDATE feature_flags SET enabled = true WHERE key = 'api_key_expiration_support'")
    try:
        yield
    finally:
        with database.connect_raw(autocommit=True) as conn:
            conn.execute("UPDATE feature_flags SET enabled = false WHERE key = 'api_key_expiration_support'")
            conn.execute("UPDATE parameters SET value = '{\"enabled\": false, \"expiration_period\": 90}' "
                         "WHERE key = %s", (EXPIRATION,))


def expires_at(database: Database, token_id: str) -> datetime | None:
    with database.connect_raw() as conn:
        return conn.execute("SELECT expires_at FROM auth_tokens WHERE id = %s", (token_id,)).fetchone()[0]


def signed_self(http: httpx.Client, token: dict) -> httpx.Response:
    return http.get("/api/v2/self", headers=signed_headers(token["id"], token["key"], "GET", "/api/v2/self"))


def test_the_parameter_is_not_available_without_the_flag(admin: httpx.Client) -> None:
    response = admin.put("/api/v2/config", json={"key": EXPIRATION, "value": {"enabled": True,
                                                                                "expiration_period": 30}})
    assert_error(response, 403, f"Configuration parameter {EXPIRATION} is not available.")
    listed = admin.get("/api/v2/config").json()["data"]
    assert next(p for p in listed if p["key"] == EXPIRATION)["value"] == {"enabled": False, "expiration_period": 90}


def test_new_tokens_expire_after_the_period_and_are_then_refused(admin: httpx.Client, database: Database,
                                                                 expiry_supported: None) -> None:
    before = new_token(admin)
    response = admin.put("/api/v2/config", json={"key": EXPIRATION, "value": {"enabled": True,
                                                                                "expiration_period": 30}})
    assert response.status_code == 200, response.text
    assert_error(admin.put("/api/v2/config", json={"key": EXPIRATION, "value": {"enabled": True,
                                                                                  "expiration_period": 366}}), 400)
    token = new_token(admin)
    lifetime = expires_at(database, token["id"]) - datetime.now(UTC)
    assert timedelta(days=29, hours=23) < lifetime <= timedelta(days=30)
    assert signed_self(admin, token).status_code == 200
    assert expires_at(database, before["id"]) is None, "tokens made before expiry was on keep living"

    expired = new_token(admin)
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("UPDATE auth_tokens SET expires_at = now() - interval '1 second' WHERE id = %s", (expired["id"],))
    assert_error(signed_self(admin, expired), 401)
    assert signed_self(admin, before).status_code == 200
