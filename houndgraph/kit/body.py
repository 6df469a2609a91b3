"""Reading a streamed request body, whether it was spooled by signature checking or not."""

from __future__ import annotations

from collections.abc import AsyncIterator

from starlette.requests import Request

CHUNK = 1024 * 1024


async def iter_body(request: Request) -> AsyncIterator[bytes]:
    spooled = getattr(request.state, "spooled_body", None)
    if spooled is None:
        async for chunk in request.stream():
            if chunk:
                yield chunk
        return
    while chunk := spooled.read(CHUNK):
        yield chunk
