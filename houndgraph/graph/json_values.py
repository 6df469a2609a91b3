"""json and jsonb values as psycopg hands them over, read by orjson where it reads them as the standard parser does.

orjson is several times faster than the standard library on the many small values of a large result (node
properties, Cypher literals), but it reads an integer beyond 64 bits as a float (jsonb holds integers of any
size) and refuses what the standard parser takes (numbers beyond a double, lone surrogates in `json` text).
Such texts go to `json.loads`: a refused one at once, one that held an integer orjson may have read inexactly when
its value shows a float of 2^63 or more (an integer orjson keeps is below that, or below 2^64 and positive; such a
float written as one is read again too, which changes nothing). `houndgraph.db.Database` makes this psycopg's reader
for the whole process; Cypher's large loads decode through it too (`graph.cypher.execute`).
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def read_json(data: str | bytes) -> Any:
    raw = data if isinstance(data, str | bytes) else bytes(data)  # psycopg may hand over a memoryview
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json.loads(raw)
    return value if _exact(value) else json.loads(raw)


# Floats this large may be integers orjson read inexactly. (Looking for them in the value costs a third of what a
# regular expression for long runs of digits over the text did, and half the standard parser's time.)
_INEXACT = 2.0**63


def _exact(value: Any) -> bool:
    pending = [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is dict:
            pending.extend(item.values())
        elif kind is list:
            pending.extend(item)
        elif kind is float and not -_INEXACT < item < _INEXACT:
            return False
    return True
