"""Bearer sessions end when they expire, when their row is revoked, and when their user is disabled."""

from __future__ import annotations

import httpx
import jwt

from houndgraph.db import Database
from tests.factories import bearer, create_user
from tests.user.helpers import assert_error

FAILED = "Token Authorization failed."


def session_id(headers: dict[str, str]) -> int:
    token = headers["Authorization"].removeprefix("Bearer ")
    return int(jwt.decode(token, options={"verify_signature": False})["sid"])


def test_an_expired_session_is_refused(admin: httpx.Client, database: Database) -> None:
    user = create_user(admin)
    headers = bearer(admin, user["principal_name"])
    assert admin.get("/api/v2/self", headers=headers).status_code == 200
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("UPDATE user_sessions SET expires_at = now() - interval '1 second' WHERE id = %s",
                     (session_id(headers),))
    assert_error(admin.get("/api/v2/self", headers=headers), 401, FAILED)


def test_a_revoked_session_is_refused(admin: httpx.Client, database: Database) -> None:
    user = create_user(admin)
    headers = bearer(admin, user["principal_name"])
    other = bearer(admin, user["principal_name"])
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("DELETE FROM user_sessions WHERE id = %s", (session_id(headers),))
    assert_error(admin.get("/api/v2/self", headers=headers), 401, FAILED)
    # Only that session: the user's other one still works.
    assert admin.get("/api/v2/self", headers=other).status_code == 200


def test_logout_revokes_only_that_session(admin: httpx.Client) -> None:
    user = create_user(admin)
    first, second = bearer(admin, user["principal_name"]), bearer(admin, user["principal_name"])
    assert admin.post("/api/v2/logout", headers=first).status_code == 200
    assert_error(admin.get("/api/v2/self", headers=first), 401, FAILED)
    assert admin.get("/api/v2/self", headers=second).status_code == 200


def test_a_disabled_user_is_refused_even_with_a_live_session_row(admin: httpx.Client, database: Database) -> None:
    # Disabled behind the API's back: the check on each request, not the session cleanup, refuses it.
    user = create_user(admin)
    headers = bearer(admin, user["principal_name"])
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("UPDATE users SET is_disabled = true WHERE id = %s", (user["id"],))
    assert_error(admin.get("/api/v2/self", headers=headers), 401, FAILED)


def test_a_forged_or_garbled_jwt_is_refused(admin: httpx.Client) -> None:
    user = create_user(admin)
    headers = bearer(admin, user["principal_name"])
    claims = jwt.decode(headers["Authorization"].removeprefix("Bearer "), options={"verify_signature": False})
    forged = jwt.encode(claims, "not-the-server-key-" * 3, algorithm="HS256")
    assert_error(admin.get("/api/v2/self", headers={"Authorization": f"Bearer {forged}"}), 401, FAILED)
    assert_error(admin.get("/api/v2/self", headers={"Authorization": "Bearer abc.def"}), 401, FAILED)
