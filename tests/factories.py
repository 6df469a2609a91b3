"""Users for tests, made by plain functions with unique names.

`create_user` goes through the users API as an administrator would; `insert_user` writes the rows directly,
for the tests of other domains (saved queries, SSO, configuration), which should not depend on the users API.
Either way the password is hashed with the service's argon2 parameters: a user costs a noticeable fraction of a
second, so tests that only need users of some roles, and do not change them, share them per module."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy.orm import Session

from houndgraph.auth.passwords import hash_password
from houndgraph.db import Database
from houndgraph.models import User
from houndgraph.user import repository as user_repository
from tests.conftest import TLS, LiveServer, login

PASSWORD = "Quite-Str0ng-Secret!"
ROLE_IDS = {"Administrator": 1, "Power User": 2, "User": 3, "Read-Only": 4, "Upload-Only": 5, "Auditor": 6}


def unique(prefix: str = "user") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def create_user(admin: httpx.Client, role: str | None = "User", *, password: str | None = PASSWORD,
                **fields: Any) -> dict[str, Any]:
    """A new user made over the API (principal, names and email unique unless given); returns `model.user`."""
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


@dataclass(frozen=True)
class StoredUser:
    id: str
    principal_name: str


def insert_user(database: Database, role: str = "User", *, sso_provider_id: int | None = None) -> StoredUser:
    """A new user with one role and `PASSWORD`, written straight to the database."""
    principal = unique("test")
    with Session(database.sync_engine) as session, session.begin():
        role_row = user_repository.role_by_name(session, role)
        assert role_row is not None, role
        user = user_repository.add_user(session, User(
            principal_name=principal, email_address=f"{principal}@example.test", first_name="Test", last_name=role,
            roles=[role_row], eula_accepted=True, sso_provider_id=sso_provider_id))
        user_repository.set_secret(session, user.id, hash_password(PASSWORD),
                                   datetime.now(UTC) + timedelta(days=30), must_change=False)
        return StoredUser(str(user.id), principal)


def bearer(client: httpx.Client, principal: str, password: str = PASSWORD) -> dict[str, str]:
    """Headers that authenticate as `principal` (they override the admin bearer of the `admin` fixture)."""
    return {"Authorization": f"Bearer {login(client, principal, password)}"}


def user_with_role(admin: httpx.Client, role: str) -> tuple[dict[str, Any], dict[str, str]]:
    """A new user made over the API, and headers that authenticate as them."""
    user = create_user(admin, role)
    return user, bearer(admin, user["principal_name"])


@dataclass
class Account:
    """A user and a client of their own, logged in as them."""

    id: str
    principal_name: str
    http: httpx.Client


@contextmanager
def logged_in(live_server: LiveServer, principal: str, password: str = PASSWORD) -> Iterator[httpx.Client]:
    """A client of its own logged in as `principal`, closed at the end of the block (fixtures wider than one
    test cannot use the per-test `client` and `admin`)."""
    with httpx.Client(base_url=live_server.base_url, timeout=60, limits=httpx.Limits(keepalive_expiry=2.0),
                      verify=TLS) as http:
        http.headers.update(bearer(http, principal, password))
        yield http


@contextmanager
def account(live_server: LiveServer, database: Database, role: str = "User",
            *, sso_provider_id: int | None = None) -> Iterator[Account]:
    """A user inserted with `insert_user`, logged in on a client of their own."""
    user = insert_user(database, role, sso_provider_id=sso_provider_id)
    with logged_in(live_server, user.principal_name) as http:
        yield Account(user.id, user.principal_name, http)


def admin_id(admin: httpx.Client) -> str:
    return admin.get("/api/v2/self").json()["data"]["id"]
