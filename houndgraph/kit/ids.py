"""Ids in request paths, parsed with the reference message rather than a validation error."""

from __future__ import annotations

import uuid

from houndgraph.errors import ID_MALFORMED, BadRequest


def parse_uuid(raw: str) -> uuid.UUID:
    try:
        return uuid.UUID(raw)
    except ValueError:
        raise BadRequest(ID_MALFORMED) from None


def parse_int_id(raw: str, *, bits: int = 64, signed: bool = False, digits_only: bool = False) -> int:
    """An integer path id whose magnitude fits a signed `bits`-bit integer; else 400 `id is malformed`.

    Negative ids are refused unless `signed`. `digits_only` also refuses what Python's `int()` would
    forgive (a sign, surrounding spaces, `_` separators, non-ASCII digits).
    """
    if digits_only and not (raw.isascii() and raw.isdigit()):
        raise BadRequest(ID_MALFORMED)
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(ID_MALFORMED) from None
    if abs(value) >= 2 ** (bits - 1) or (value < 0 and not signed):
        raise BadRequest(ID_MALFORMED)
    return value
