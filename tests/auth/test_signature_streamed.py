"""Signed requests whose route streams its body (uploads): the body is hashed while it is spooled, and
the handler reads the spooled copy. Tested on a route added to a private app, so it does not wait for
the upload routes."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator

import httpx
import pytest
from fastapi import Request

from houndgraph.auth.dependencies import SPOOL_IN_MEMORY
from houndgraph.db import Database
from houndgraph.kit.body import iter_body
from houndgraph.routing import AUTHENTICATED, Route
from houndgraph.settings import Settings
from tests.auth.signing import signed_headers
from tests.conftest import another_server
from tests.factories import unique
from tests.user.helpers import assert_error

PATH = "/api/v2/test-only/stream"


async def _digest_of_body(request: Request) -> dict[str, object]:
    digest, size = hashlib.sha256(), 0
    async for chunk in iter_body(request):
        digest.update(chunk)
        size += len(chunk)
    return {"sha256": digest.hexdigest(), "size": size,
            "spooled": getattr(request.state, "spooled_body", None) is not None}


@pytest.fixture(scope="module")
def streaming_app(server_settings: Settings, database: Database) -> Iterator[httpx.Client]:
    route = Route("POST", PATH, _digest_of_body, AUTHENTICATED, streams_body=True)
    with another_server(server_settings, database, routes=[route]) as server, \
            httpx.Client(base_url=server.base_url, timeout=60) as http:
        yield http


@pytest.fixture
def token(admin: httpx.Client) -> dict:
    response = admin.post("/api/v2/tokens", json={"token_name": unique("stream")})
    assert response.status_code == 200
    return response.json()["data"]


def test_a_large_streamed_body_is_verified_and_handed_on(streaming_app: httpx.Client, token: dict) -> None:
    body = os.urandom(SPOOL_IN_MEMORY + 1024 * 1024)  # past the in-memory part: spooled to disk
    headers = signed_headers(token["id"], token["key"], "POST", PATH, body)
    response = streaming_app.post(PATH, content=body, headers=headers)
    assert response.status_code == 200, response.text
    assert response.json() == {"sha256": hashlib.sha256(body).hexdigest(), "size": len(body), "spooled": True}


def test_a_tampered_streamed_body_is_refused(streaming_app: httpx.Client, token: dict) -> None:
    body = os.urandom(64 * 1024)
    headers = signed_headers(token["id"], token["key"], "POST", PATH, body)
    response = streaming_app.post(PATH, content=body[:-1] + bytes([body[-1] ^ 1]), headers=headers)
    assert_error(response, 401, "unable to validate request signature for client: "
                                "digest validation failed: signature digest mismatch")
