"""Query-parameter rules of the data-quality lists (reference `dataquality.go`), and the completeness."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.data_quality import repository
from houndgraph.data_quality.schemas import DEFAULT_LIMIT, DEFAULT_WINDOW_DAYS, SORT_COLUMNS, Completeness, Platform
from houndgraph.errors import BadRequest
from houndgraph.kit.pagination import parse_page
from houndgraph.kit.query import parse_time
from houndgraph.kit.sorting import SortKey, parse_sort

DEFAULT_SORT = (SortKey("created_at", descending=True),)


@dataclass(frozen=True, slots=True)
class Window:
    start: datetime
    end: datetime
    sort: list[SortKey]
    skip: int
    limit: int


def parse_platform(raw: str) -> Platform:
    try:
        return Platform(raw)
    except ValueError:
        raise BadRequest(f"invalid platform id specified in url: {raw}") from None


def parse_window(sort_by: Sequence[str], start: str | None, end: str | None, skip: str | None,
                 limit: str | None, *, now: datetime | None = None) -> Window:
    sort = parse_sort(sort_by, SORT_COLUMNS, default=DEFAULT_SORT)
    now = now or datetime.now(UTC)
    end_at = parse_time(end, now)
    start_at = parse_time(start, now - timedelta(days=DEFAULT_WINDOW_DAYS))
    page = parse_page(skip, limit, default_limit=DEFAULT_LIMIT)
    return Window(start_at, end_at, sort, page.skip, page.limit)


async def list_stats(session: AsyncSession, table_key: str, owner: str | None,
                     window: Window) -> tuple[list[dict[str, Any]], int]:
    return await repository.list_rows(session, table_key, owner, window.start, window.end, window.sort,
                                      window.skip, window.limit)


async def completeness(session: AsyncSession) -> Completeness:
    sessions, local_groups = await repository.completeness(session)
    return Completeness(LocalGroupCompleteness=local_groups, SessionCompleteness=sessions)
