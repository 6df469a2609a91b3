"""Ids in request paths, parsed with the reference message rather than a validation error."""

from __future__ import annotations

import uuid

from houndgraph.errors import ID_MALFORMED, BadRequest


def parse_uuid(raw: str) -> uuid.UUID:
    try:
        return uuid.UUID(raw)
    except ValueError:
        raise BadRequest(ID_MALFORMED) from None
