"""json and jsonb values as psycopg hands them over, read by orjson where it reads them as the standard parser does.

orjson is several times faster than the standard library on the many small values of a large result (node
properties, Cypher literals), but it reads an integer beyond 64 bits as a float (jsonb holds integers of any
size) and refuses what the standard parser takes (numbers beyond a double, lone surrogates in `json` text).
Such texts go to `json.loads`. `houndgraph.db.Database` makes this psycopg's reader for the whole process.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

# A run of 19 digits or more: maybe a number beyond 64 bits, which orjson reads as a float, losing digits.
_LONG_DIGITS = re.compile(rb"[0-9]{19}")


def read_json(data: str | bytes) -> Any:
    raw = data.encode() if isinstance(data, str) else bytes(data)
    if _LONG_DIGITS.search(raw) is None:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return json.loads(raw)
