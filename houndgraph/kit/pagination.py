"""`skip` / `limit` query parameters, parsed with the reference messages."""

from __future__ import annotations

from dataclasses import dataclass

from houndgraph.errors import BadRequest


@dataclass(frozen=True, slots=True)
class Page:
    skip: int
    limit: int


def _non_negative(raw: str | None, default: int, what: str) -> int:
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"invalid {what}: {raw}") from None
    if value < 0:
        raise BadRequest(f"invalid {what}: {raw}")
    return value


def parse_page(skip: str | None, limit: str | None, *, default_limit: int,
               max_limit: int | None = None) -> Page:
    page = Page(_non_negative(skip, 0, "skip"), _non_negative(limit, default_limit, "limit"))
    if max_limit is not None and page.limit > max_limit:
        raise BadRequest(f"invalid limit: {limit} (at most {max_limit})")
    return page
