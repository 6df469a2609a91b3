"""A JSON response rendered with orjson (error bodies and hand-built payloads such as graph results)."""

from __future__ import annotations

import json
from typing import Any

import orjson
from starlette.responses import Response


class JSONResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        try:
            return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS)
        except TypeError:
            # orjson stops at 64-bit integers; a Cypher result can hold a larger number (toInteger of a long
            # string). The standard library writes any integer; non-string keys become strings as with orjson.
            return json.dumps(content, ensure_ascii=False, separators=(",", ":"), default=str).encode()
