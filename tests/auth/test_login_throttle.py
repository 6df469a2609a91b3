"""Login throttling per username, and failed logins that cost the same whether or not the user exists."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from houndgraph.auth import passwords
from tests.conftest import LiveServer
from tests.factories import PASSWORD, create_user, unique
from tests.user.helpers import assert_error


def attempt(client: httpx.Client, username: str, secret: str) -> httpx.Response:
    return client.post("/api/v2/login", json={"login_method": "secret", "username": username, "secret": secret})


def test_repeated_failures_are_throttled_per_username(admin: httpx.Client, live_server: LiveServer) -> None:
    limit = live_server.settings.login_max_failures
    user = create_user(admin)
    for _ in range(limit):
        assert_error(attempt(admin, user["principal_name"], "Wrong-Password-123"), 401)
    # Now even the right password is refused until the window passes.
    response = attempt(admin, user["principal_name"], PASSWORD)
    assert_error(response, 429)
    assert int(response.headers["Retry-After"]) == live_server.settings.login_failure_window_seconds
    # Usernames are throttled one by one: others still log in.
    other = create_user(admin)
    assert attempt(admin, other["principal_name"], PASSWORD).status_code == 200


def test_the_throttle_ignores_case_and_covers_unknown_users(admin: httpx.Client, live_server: LiveServer) -> None:
    username = unique("ghost")
    for index in range(live_server.settings.login_max_failures):
        name = username.upper() if index % 2 else username
        assert_error(attempt(admin, name, "Whatever-123!"), 401)
    assert_error(attempt(admin, username, "Whatever-123!"), 429)


def test_a_success_clears_earlier_failures(admin: httpx.Client, live_server: LiveServer) -> None:
    user = create_user(admin)
    for _ in range(live_server.settings.login_max_failures - 1):
        assert_error(attempt(admin, user["principal_name"], "Wrong-Password-123"), 401)
    assert attempt(admin, user["principal_name"], PASSWORD).status_code == 200
    for _ in range(live_server.settings.login_max_failures - 1):
        assert_error(attempt(admin, user["principal_name"], "Wrong-Password-123"), 401)
    assert attempt(admin, user["principal_name"], PASSWORD).status_code == 200


class CountingHasher:
    """Wraps the argon2 hasher the server uses and counts verifications (the costly step)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.verifications = 0

    def verify(self, digest: str, password: str) -> bool:
        self.verifications += 1
        return self.inner.verify(digest, password)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.fixture
def hasher(monkeypatch: pytest.MonkeyPatch) -> CountingHasher:
    counting = CountingHasher(passwords._hasher)
    monkeypatch.setattr(passwords, "_hasher", counting)
    return counting


def test_every_failed_login_runs_one_password_verification(admin: httpx.Client, hasher: CountingHasher) -> None:
    """Unknown user, known user with a wrong password, user without a password, disabled user: each costs
    exactly one argon2 verification, so response times do not tell which usernames exist."""
    with_password = create_user(admin)
    without_password = create_user(admin, password=None)
    disabled = create_user(admin, is_disabled=True)
    cases = [
        (unique("nobody"), PASSWORD),
        (with_password["principal_name"], "Wrong-Password-123"),
        (without_password["principal_name"], PASSWORD),
        (disabled["principal_name"], PASSWORD),
    ]
    for username, secret in cases:
        before = hasher.verifications
        message = assert_error(attempt(admin, username, secret), 401)
        assert hasher.verifications - before == 1, username
        # One message for every cause.
        assert message == "Your username or password is incorrect"
