"""Users for tests of saved queries and SSO providers: created in the database (argon2 password, one role),
then logged in over HTTP like any client."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import httpx
from sqlalchemy import select
from sqlalchemy.orm import Session

from houndgraph.auth.passwords import hash_password
from houndgraph.db import Database
from houndgraph.models import AuthSecret, Role, User
from tests.conftest import LiveServer, login

PASSWORD = "Account-Password-42!"


@dataclass
class Account:
    id: str
    principal_name: str
    http: httpx.Client


def insert_user(database: Database, role_name: str, *, sso_provider_id: int | None = None) -> tuple[str, str]:
    principal = f"test-{uuid.uuid4().hex[:12]}"
    with Session(database.sync_engine) as session, session.begin():
        role = session.scalar(select(Role).where(Role.name == role_name))
        assert role is not None, role_name
        user = User(principal_name=principal, email_address=f"{principal}@example.test", first_name="Test",
                    last_name=role_name, roles=[role], eula_accepted=True, sso_provider_id=sso_provider_id)
        session.add(user)
        session.flush()
        session.add(AuthSecret(user_id=user.id, digest=hash_password(PASSWORD),
                               expires_at=datetime.now(UTC) + timedelta(days=30), must_change=False))
        return str(user.id), principal


@contextmanager
def account(live_server: LiveServer, database: Database, role_name: str = "User",
            *, sso_provider_id: int | None = None) -> Iterator[Account]:
    user_id, principal = insert_user(database, role_name, sso_provider_id=sso_provider_id)
    with httpx.Client(base_url=live_server.base_url, timeout=60) as http:
        http.headers["Authorization"] = f"Bearer {login(http, principal, PASSWORD)}"
        yield Account(user_id, principal, http)


def admin_id(admin: httpx.Client) -> str:
    return admin.get("/api/v2/self").json()["data"]["id"]
