"""Test helpers shared by the user, token and auth tests (users themselves come from `tests.factories`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from houndgraph.db import Database


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
