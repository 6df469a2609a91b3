"""ASGI middleware: a request id for every request, unclean paths redirected, the `Prefer: wait=N` deadline,
and body size caps.

Written as plain ASGI (not BaseHTTPMiddleware) so request and response bodies stream untouched.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from houndgraph.errors import BadRequest, PayloadTooLarge, ServiceError

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


def clean_path(path: str) -> str:
    """Go's `path.Clean` as the reference's router (gorilla/mux) applies it: doubled slashes and `.` / `..`
    segments go, a trailing slash stays."""
    segments: list[str] = []
    for segment in path.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if segments:
                segments.pop()
            continue
        segments.append(segment)
    cleaned = "/" + "/".join(segments)
    if path.endswith("/") and cleaned != "/":
        cleaned += "/"
    return cleaned


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

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], header_id]
            await send(message)

        raw_path = (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
        cleaned = clean_path(raw_path)
        if cleaned != raw_path:
            # A client that joins its base URL with a trailing slash sends `//api/v2/...`: like the
            # reference's router, answer 301 to the cleaned path (query kept) whatever the method.
            await self._redirect(send_with_id, cleaned, scope.get("query_string", b""))
            return

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

        await self.app(scope, limited_receive, send_with_id)

    @staticmethod
    async def _redirect(send: Send, path: str, query: bytes) -> None:
        location = path.encode("latin-1") + (b"?" + query if query else b"")
        await send({
            "type": "http.response.start",
            "status": 301,
            "headers": [(b"location", location), (b"content-length", b"0")],
        })
        await send({"type": "http.response.body", "body": b""})

    async def _reject(self, scope: Scope, send: Send, error: ServiceError) -> None:
        body = self.render_error(scope, error)
        await send({
            "type": "http.response.start",
            "status": int(error.status),
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        })
        await send({"type": "http.response.body", "body": body})
