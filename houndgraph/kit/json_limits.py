"""Limits on JSON a client sends, checked on the raw bytes before anything parses them.

PostgreSQL text cannot hold NUL, so a `\\u0000` anywhere in a body (or a NUL in the query string) is
refused with a 400 up front rather than failing deep in a driver with a message meant for developers.
"""

from __future__ import annotations

import re

from houndgraph.errors import BadRequest
from houndgraph.ingest.nesting import MAX_JSON_DEPTH, nests_deeper_than, too_deep_message

NUL_REFUSED = "NUL characters (\\u0000) are not accepted"
# An escaped NUL: `\u0000` after an even number of backslashes (an odd run would escape the `\` itself).
_ESCAPED_NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")


def check_json_text(body: bytes) -> None:
    """BadRequest for JSON nesting past MAX_JSON_DEPTH or holding a NUL character."""
    if nests_deeper_than(body, MAX_JSON_DEPTH):
        raise BadRequest(too_deep_message(MAX_JSON_DEPTH))
    if b"\x00" in body or _ESCAPED_NUL.search(body):
        raise BadRequest(NUL_REFUSED)


def check_query_string(raw: bytes) -> None:
    lowered = raw.lower()
    if b"%00" in lowered or b"\x00" in lowered:
        raise BadRequest(NUL_REFUSED)
