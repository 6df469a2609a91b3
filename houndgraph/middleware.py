"""ASGI middleware: a request id for every request, the `Prefer: wait=N` deadline, and body size caps.

Written as plain ASGI (not BaseHTTPMiddleware) so request and response bodies stream untouched.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from houndgraph.errors import BadRequest, InternalError, PayloadTooLarge, ServiceError

log = logging.getLogger("houndgraph")

REQUEST_ID_HEADER = "RequestID"
DEFAULT_WAIT_SECONDS = 30
WAIT_PATTERN = re.compile(r"^wait=[0-9]+$")
JSON_BODY_LIMIT = 10 * 1024 * 1024

ErrorRenderer = Callable[[Scope, ServiceError], Message]


def parse_prefer(header: str | None) -> int:
    """Seconds of database work the request allows. RFC 7240: comma-separated preferences; only `wait`
    is ours. A Prefer header without `wait` is ignored (the official Python SDK sends `Prefer: 0`)."""
    if not header:
        return DEFAULT_WAIT_SECONDS
    for preference in header.split(","):
        preference = preference.strip()
        name = preference.split("=", 1)[0].strip().lower()
        if name != "wait":
            continue
        compact = preference.replace(" ", "")
        if not WAIT_PATTERN.match(compact):
            raise BadRequest(
                "Prefer header has an invalid value: leave field empty or specify with : 'wait=x'"
            )
        return int(compact.split("=", 1)[1])
    return DEFAULT_WAIT_SECONDS


class RequestContextMiddleware:
    """Sets `scope["state"]["request_id"]` and `["wait_seconds"]`, echoes RequestID, caps request bodies."""

    def __init__(self, app: ASGIApp, *, render_error: Callable[[Scope, ServiceError], bytes],
                 body_limit_for: Callable[[str], int]) -> None:
        self.app = app
        self.render_error = render_error
        self.body_limit_for = body_limit_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = str(uuid.uuid4())
        state = scope.setdefault("state", {})
        state["request_id"] = request_id
        header_id = (REQUEST_ID_HEADER.encode("latin-1"), request_id.encode("latin-1"))

        started = False

        async def send_with_id(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], header_id]
            await send(message)

        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        try:
            state["wait_seconds"] = parse_prefer(headers.get("prefer"))
            limit = self.body_limit_for(scope["path"])
            declared = headers.get("content-length")
            if declared is not None and declared.isdigit() and int(declared) > limit:
                raise PayloadTooLarge(f"request body is larger than {limit} bytes")
        except ServiceError as error:
            await self._reject(scope, send_with_id, error)
            return

        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise PayloadTooLarge(f"request body is larger than {limit} bytes")
            return message

        try:
            await self.app(scope, limited_receive, send_with_id)
        except Exception:
            # Answered here rather than by Starlette's last-resort handler, which re-raises after the 500
            # and so makes the server close a kept-alive connection the client is about to reuse.
            if started:
                raise
            log.exception("unexpected error (request %s)", request_id)
            await self._reject(scope, send_with_id, InternalError())

    async def _reject(self, scope: Scope, send: Send, error: ServiceError) -> None:
        body = self.render_error(scope, error)
        await send({
            "type": "http.response.start",
            "status": int(error.status),
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        })
        await send({"type": "http.response.body", "body": body})
