"""Listing tags (with their counts) and a tag's selectors, with the filters and sorting §3 allows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.asset_group_tag import repository as repo
from houndgraph.asset_group_tag.schemas import SelectorView, TagCounts, TagView
from houndgraph.kit.filters import (
    ID_PREDICATES,
    ORDERED_PREDICATES,
    STRING_PREDICATES,
    Filter,
    FilterColumn,
    as_bool,
    as_datetime,
    as_int,
    where,
)
from houndgraph.kit.pagination import Page
from houndgraph.kit.query import PAGE_PARAMETERS, Column, ListColumns, ListQuery, list_columns
from houndgraph.kit.sorting import order_by
from houndgraph.models import AssetGroupTag, AssetGroupTagSelector, AssetGroupTagSelectorSeed

T, S = AssetGroupTag, AssetGroupTagSelector
COUNTS, ENVIRONMENTS = "counts", "environments"
STRING = FilterColumn(STRING_PREDICATES)
STRICT = FilterColumn(ID_PREDICATES)
TIME = FilterColumn(ORDERED_PREDICATES, as_datetime)
BOOL = FilterColumn(ID_PREDICATES, as_bool)
NUMBER = FilterColumn(ID_PREDICATES, as_int)
TAGS = list_columns({name: Column(getattr(T, name), accepts, sortable=False) for name, accepts in {
    "type": NUMBER, "name": STRING, "description": STRING, "created_at": TIME, "updated_at": TIME,
    "deleted_at": TIME, "created_by": STRICT, "updated_by": STRICT, "deleted_by": STRICT,
    "require_certify": BOOL, "analysis_enabled": BOOL,
}.items()}, also=frozenset({COUNTS}))
SELECTORS = ListColumns(
    sortable=("id", "name", "created_at", "updated_at", "disabled_at", "auto_certify", "is_default"),
    filters={"auto_certify": NUMBER, "is_default": BOOL, "name": STRING, "description": STRING,
             "created_at": TIME, "updated_at": TIME, "disabled_at": TIME, "created_by": STRICT,
             "updated_by": STRICT, "disabled_by": STRICT, "type": NUMBER},
    also=PAGE_PARAMETERS | {COUNTS, ENVIRONMENTS})
SELECTOR_COLUMNS: dict[str, Any] = {
    "id": S.id, "name": S.name, "description": S.description, "auto_certify": S.auto_certify,
    "is_default": S.is_default, "created_at": S.created_at, "created_by": S.created_by, "updated_at": S.updated_at,
    "updated_by": S.updated_by, "disabled_at": S.disabled_at, "disabled_by": S.disabled_by,
}


async def list_tags(session: AsyncSession, filters: list[Filter], with_counts: bool) -> list[TagView]:
    tags = await repo.list_tags(session, where(filters, TAGS.expressions))
    if not with_counts:
        return [TagView.of(tag) for tag in tags]
    selectors = await repo.selector_counts(session)
    members = await repo.tag_member_counts(session, [tag.kind_id for tag in tags if tag.kind_id is not None])
    views = []
    for tag in tags:
        total, custom, default, disabled = selectors.get(tag.id, (0, 0, 0, 0))
        counts = TagCounts(selectors=total, custom_selectors=custom, default_selectors=default,
                           disabled_selectors=disabled, members=members.get(tag.kind_id or 0, 0))
        views.append(TagView.of(tag, counts=counts))
    return views


async def tag_view(session: AsyncSession, tag: AssetGroupTag) -> TagView:
    """One tag with its creator and last editor as email addresses where they are users."""
    emails = await repo.user_emails(session, [tag.created_by or "", tag.updated_by or ""])
    return TagView.of(tag, names=emails)


async def list_selectors(session: AsyncSession, tag: AssetGroupTag, query: ListQuery, page: Page, with_counts: bool,
                         environments: Sequence[str]) -> tuple[list[SelectorView], int]:
    sort, filters = query.sort, query.filters
    seed_filters = [item for item in filters if item.column == "type"]
    condition = where([item for item in filters if item.column != "type"], SELECTOR_COLUMNS)
    seed_condition = where(seed_filters, {"type": AssetGroupTagSelectorSeed.type})
    if seed_condition is not None:
        having_seed = S.seeds.any(seed_condition)
        condition = having_seed if condition is None else condition & having_seed
    rows, count = await repo.list_selectors(session, tag.id, condition, order_by(sort, SELECTOR_COLUMNS),
                                            page.skip, page.limit)
    if not with_counts:
        return [SelectorView.of(row) for row in rows], count
    members = await repo.selector_member_counts(session, [row.id for row in rows], environments)
    return [SelectorView.of(row, members=0 if row.disabled_at else members.get(row.id, 0)) for row in rows], count
