"""`skip` / `limit` query parameters, parsed with the reference messages."""

from __future__ import annotations

from dataclasses import dataclass

from houndgraph.errors import BadRequest

# Go parses query integers with strconv into int64: a larger value is as invalid as a non-number.
MAX_INT64 = 2**63 - 1


@dataclass(frozen=True, slots=True)
class Page:
    skip: int
    limit: int


def non_negative(raw: str | None, default: int, what: str) -> int:
    """`raw` as an integer in 0..2**63-1, `default` when absent; else 400 `invalid <what>: <raw>`."""
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"invalid {what}: {raw}") from None
    if not 0 <= value <= MAX_INT64:
        raise BadRequest(f"invalid {what}: {raw}")
    return value


def parse_page(skip: str | None, limit: str | None, *, default_limit: int) -> Page:
    return Page(non_negative(skip, 0, "skip"), non_negative(limit, default_limit, "limit"))
