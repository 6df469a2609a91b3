"""ASGI middleware: a request id for every request, unclean paths redirected, its deadline, and body size caps.

Every request gets a deadline (`scope["state"]["deadline"]`): the service's request timeout, which
`Prefer: wait=N` may lower but never lift (`wait=0` keeps the default). The deadline is cancelled when
the client disconnects, which stops the request's database work (houndgraph.deadline).

Written as plain ASGI (not BaseHTTPMiddleware) so request and response bodies stream untouched.
"""

from __future__ import annotations

import asyncio
import logging
import re
import uuid
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from houndgraph.deadline import InFlight, RequestDeadline
from houndgraph.errors import BadRequest, InternalError, PayloadTooLarge, ResponseTooLarge, ServiceError

log = logging.getLogger("houndgraph")

REQUEST_ID_HEADER = "RequestID"
WAIT_PATTERN = re.compile(r"^wait=[0-9]+$")
JSON_BODY_LIMIT = 10 * 1024 * 1024

ErrorRenderer = Callable[[Scope, ServiceError], Message]


def request_seconds(header: str | None, limit: int) -> int:
    """Seconds of work the request may do: `Prefer: wait=N` lowers `limit`; 0 or no preference keeps it."""
    wait = parse_prefer(header)
    return limit if wait is None or wait == 0 else min(wait, limit)


def parse_prefer(header: str | None) -> int | None:
    """Seconds the client is willing to wait, if it says. RFC 7240: comma-separated preferences; only `wait`
    is ours. A Prefer header without `wait` is ignored (the official Python SDK sends `Prefer: 0`)."""
    if not header:
        return None
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
    return None


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
    """Sets `scope["state"]["request_id"]` and `["deadline"]`, echoes RequestID, caps
    request bodies and JSON response bodies, and cancels the deadline when the client disconnects."""

    def __init__(self, app: ASGIApp, *, render_error: Callable[[Scope, ServiceError], bytes],
                 body_limit_for: Callable[[str], int], request_timeout: int, response_limit: int,
                 in_flight: InFlight) -> None:
        self.app = app
        self.render_error = render_error
        self.body_limit_for = body_limit_for
        self.request_timeout = request_timeout
        self.response_limit = response_limit
        self.in_flight = in_flight

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

        raw_path = (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
        cleaned = clean_path(raw_path)
        if cleaned != raw_path:
            # A client that joins its base URL with a trailing slash sends `//api/v2/...`: like the
            # reference's router, answer 301 to the cleaned path (query kept) whatever the method.
            await self._redirect(send_with_id, cleaned, scope.get("query_string", b""))
            return

        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        try:
            seconds = request_seconds(headers.get("prefer"), self.request_timeout)
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

        deadline = RequestDeadline(seconds, started=False)
        state["deadline"] = deadline
        self.in_flight.add(deadline)
        watched = _DisconnectWatch(limited_receive, deadline)
        try:
            await self.app(scope, watched.receive, self._capped(scope, send_with_id, watched))
        except Exception:
            # Answered here rather than by Starlette's last-resort handler, which re-raises after the 500
            # and so makes the server close a kept-alive connection the client is about to reuse.
            if started:
                raise
            log.exception("unexpected error (request %s)", request_id)
            await self._reject(scope, send_with_id, InternalError())
        finally:
            watched.stop()
            deadline.close()
            self.in_flight.discard(deadline)

    def _capped(self, scope: Scope, send: Send, watched: _DisconnectWatch) -> Send:
        """`send` refusing a JSON body over the response limit (bodies sent in one piece; streams pass)."""
        held: Message | None = None

        async def capped_send(message: Message) -> None:
            nonlocal held
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                watched.responded = True  # the disconnect that follows a complete response cancels nothing
            if message["type"] == "http.response.start" and _is_json(message):
                held = message
                return
            if held is not None and message["type"] == "http.response.body":
                start, held = held, None
                body = message.get("body", b"")
                if not message.get("more_body", False) and len(body) > self.response_limit:
                    await self._reject(scope, send, ResponseTooLarge(
                        f"the response would be larger than {self.response_limit} bytes: narrow the query"))
                    return
                await send(start)
            await send(message)

        return capped_send

    @staticmethod
    async def _redirect(send: Send, path: str, query: bytes) -> None:
        # Browsers read a backslash as a slash: `/\evil.example` would be `//evil.example`, another site.
        location = path.replace("\\", "%5C").encode("latin-1") + (b"?" + query if query else b"")
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


def _is_json(start: Message) -> bool:
    return any(name.lower() == b"content-type" and value.startswith(b"application/json")
               for name, value in start.get("headers", []))


class _DisconnectWatch:
    """Reads the request's messages in a task of its own, so a client that disconnects while the
    request works (not only while it sends its body) cancels the request's deadline at once. Body
    chunks are read one ahead at most, so uploads keep their flow control."""

    def __init__(self, receive: Receive, deadline: RequestDeadline) -> None:
        self._receive = receive
        self._deadline = deadline
        self.responded = False
        self._messages: asyncio.Queue[Message | BaseException] = asyncio.Queue()
        self._task = asyncio.get_running_loop().create_task(self._pump())

    async def _pump(self) -> None:
        while True:
            try:
                message = await self._receive()
            except Exception as error:  # the body cap: handed to the app, which reports it
                self._deadline.start()
                self._messages.put_nowait(error)
                return
            if message["type"] == "http.disconnect":
                if not self.responded:
                    self._deadline.cancel()
                self._messages.put_nowait(message)
                return
            self._messages.put_nowait(message)
            if message.get("more_body", False):
                await self._messages.join()
            else:
                self._deadline.start()  # the request has arrived: its time starts now

    async def receive(self) -> Message:
        item = await self._messages.get()
        self._messages.task_done()
        if isinstance(item, BaseException):
            raise item
        if item["type"] == "http.disconnect":
            # Later calls (Starlette listens for disconnects) see the disconnect again.
            self._messages.put_nowait(item)
        return item

    def stop(self) -> None:
        self._task.cancel()
