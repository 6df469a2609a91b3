"""Collection clients in tests: made over the API, and an HTTP client that signs as one."""

from __future__ import annotations

import time
from collections.abc import Generator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from tests.auth.signing import signed_headers
from tests.factories import unique

SESSIONS_ONLY = {"session_collection": True, "all_trusted_domains": True}


class ClientSignature(httpx.Auth):
    """Signs every request with a client token, as a collector does (`bhesignature`)."""

    requires_request_body = True

    def __init__(self, token_id: str, key: str) -> None:
        self.token_id, self.key = token_id, key

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        uri = request.url.raw_path.decode()
        request.headers.update(signed_headers(self.token_id, self.key, request.method, uri, request.content))
        yield request


def create_client(admin: httpx.Client, **fields: Any) -> dict[str, Any]:
    body = {"name": unique("client"), "type": "sharphound", "domain_controller": "dc01.testlab.local", **fields}
    response = admin.post("/api/v2/clients", json=body)
    assert response.status_code == 200, response.text
    return response.json()["data"]


def as_client(base_url: str, created: dict[str, Any]) -> httpx.Client:
    """An HTTP client signing as the collection client `created` (its token with the key, from create)."""
    token = created["token"]
    return httpx.Client(base_url=base_url, timeout=60, auth=ClientSignature(token["id"], token["key"]))


def rrule_from(start: datetime, rule: str = "FREQ=DAILY") -> str:
    return f"DTSTART:{start.astimezone(UTC):%Y%m%dT%H%M%SZ}\nRRULE:{rule}"


def due_soon(seconds: int = 1) -> str:
    """A daily rule whose first run is `seconds` from now."""
    return rrule_from(datetime.now(UTC) + timedelta(seconds=seconds))


def wait_for(check: Any, timeout: float = 60, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def error_message(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert list(body) == ["http_status", "timestamp", "request_id", "errors"]
    (error,) = body["errors"]
    return error["message"]
