"""Values as the staging COPY sends them: JSON text for properties, RFC 3339 for timestamps."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson

EMPTY_JSON = "{}"


def rfc3339(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError("seen_at must be timezone-aware")
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def json_list(values: list[str]) -> str:
    """A list bound as one JSON array parameter (see sql.py)."""
    return orjson.dumps(values).decode()


def copy_json(text: str) -> str:
    """JSON text as a field of COPY's text format: JSON holds no raw tab, newline or carriage return (it escapes
    them), so doubling its backslashes is all the escaping it needs."""
    return text.replace("\\", "\\\\")


def copy_field(value: str) -> str:
    """Any text as a field of COPY's text format."""
    return value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def with_keys(json_object: str, tail: str) -> str:
    """A JSON object text with the members of the object text `tail` appended. A key repeated in a JSON
    object keeps its last value, so `tail` wins, as with jsonb `||`."""
    if json_object == EMPTY_JSON:
        return tail
    return json_object[:-1] + "," + tail[1:]


def json_lines(objects: list[dict[str, Any]], tail: str) -> str:
    """`with_keys(to_json(each), tail)` for each of `objects`, one per line (JSON text holds no raw newline).

    Encoded in one pass where it can be: orjson output holds no raw newline, so each `}` before a newline
    closes an object, and `tail`'s members go in there. Empty objects, keys that are `str` subclasses and NUL
    characters take `to_json` one object at a time."""
    if not objects:
        return ""
    if all(objects):
        dumps = orjson.dumps
        try:
            # Each text decoded at once: thousands of orjson's bytes kept alive cost three times as much.
            text = "\n".join([dumps(item).decode() for item in objects])
        except TypeError:
            pass
        else:
            if "\\u0000" not in text:
                return (text + "\n").replace("}\n", "," + tail[1:] + "\n")[:-1]
    return "\n".join([with_keys(to_json(item), tail) for item in objects])


def to_json(properties: dict[str, Any]) -> str:
    if not properties:
        return EMPTY_JSON
    try:
        data = orjson.dumps(properties).decode()
    except TypeError:
        # Keys that are str subclasses (a StrEnum property name) need the slower option.
        data = orjson.dumps(properties, option=orjson.OPT_NON_STR_KEYS).decode()
    # PostgreSQL's jsonb refuses the NUL character; collectors occasionally copy one from a directory
    # attribute, and one such value must not fail the whole file. The check is a cheap substring test;
    # it can also hit a literal backslash-u0000 text, which the cleaning then leaves as it is.
    if "\\u0000" in data:
        data = orjson.dumps(_without_nul(properties), option=orjson.OPT_NON_STR_KEYS).decode()
    return data


def _without_nul(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {_without_nul(key): _without_nul(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_without_nul(item) for item in value]
    return value
