"""Three users with the User role (an owner, a user queries get shared with, a stranger) and helpers.
Query names carry a random suffix: the database is shared by every test of the session."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest

from houndgraph.db import Database
from tests.conftest import LiveServer
from tests.factories import Account, account


def unique(prefix: str = "query") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def assert_error(response: httpx.Response, status: int, message: str | None = None) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["http_status"] == status
    if message is not None:
        assert body["errors"][0]["message"] == message, body


def create_query(http: httpx.Client, name: str | None = None, query: str = "MATCH (n:User) RETURN n LIMIT 5",
                 description: str = "") -> dict:
    response = http.post("/api/v2/saved-queries", json={"name": name or unique(), "query": query,
                                                        "description": description})
    assert response.status_code == 201, response.text
    return response.json()["data"]


@pytest.fixture
def owner(live_server: LiveServer, database: Database) -> Iterator[Account]:
    """Fresh for each test: tests count, list and export the queries it owns."""
    with account(live_server, database) as user:
        yield user


# The other two are made once per module (argon2 makes each user slow): tests only share queries with them,
# or have them make queries of their own under unique names, and never change the users themselves.
@pytest.fixture(scope="module")
def shared_user(live_server: LiveServer, database: Database) -> Iterator[Account]:
    with account(live_server, database) as user:
        yield user


@pytest.fixture(scope="module")
def other_user(live_server: LiveServer, database: Database) -> Iterator[Account]:
    with account(live_server, database) as user:
        yield user
