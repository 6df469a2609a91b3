"""What the zone lists may be sorted and filtered by (tags, selectors, members, certifications, history) and the SQL
each column reads (§3); listing tags (with their counts) and a tag's selectors."""

from __future__ import annotations

from collections.abc import Sequence

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
from houndgraph.kit.query import PAGE_PARAMETERS, Column, ListQuery, list_columns
from houndgraph.kit.sorting import SortKey, order_by
from houndgraph.models import (
    AssetGroupHistory,
    AssetGroupTag,
    AssetGroupTagSelector,
    AssetGroupTagSelectorNode,
    AssetGroupTagSelectorSeed,
)

T, S = AssetGroupTag, AssetGroupTagSelector
Node, H = AssetGroupTagSelectorNode, AssetGroupHistory
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
# A selector's `type` is the type of its seeds: the service filters on it through the selector's seeds.
SELECTORS = list_columns({
    "id": Column(S.id),
    "name": Column(S.name, STRING),
    "created_at": Column(S.created_at, TIME),
    "updated_at": Column(S.updated_at, TIME),
    "disabled_at": Column(S.disabled_at, TIME),
    "auto_certify": Column(S.auto_certify, NUMBER),
    "is_default": Column(S.is_default, BOOL),
    "description": Column(S.description, STRING, sortable=False),
    "created_by": Column(S.created_by, STRICT, sortable=False),
    "updated_by": Column(S.updated_by, STRICT, sortable=False),
    "disabled_by": Column(S.disabled_by, STRICT, sortable=False),
    "type": Column(AssetGroupTagSelectorSeed.type, NUMBER, sortable=False),
}, also=PAGE_PARAMETERS | {COUNTS, ENVIRONMENTS})

# A zone's members (and a selector's), as rows of the selected nodes; the repository sorts the same columns of
# the rows it picks (one per node).
MEMBERS = list_columns({
    "id": Column(Node.node_id),
    "objectid": Column(Node.node_object_id),
    "name": Column(Node.node_name, STRING),
    "object_id": Column(Node.node_object_id, STRING, sortable=False),
    "primary_kind": Column(Node.node_primary_kind, STRICT, sortable=False),
}, default_sort=(SortKey("id"),), also=PAGE_PARAMETERS | {ENVIRONMENTS})

CERTIFICATIONS = list_columns({
    "asset_group_tag_id": Column(S.asset_group_tag_id, NUMBER, sortable=False),
    "certified": Column(Node.certified, NUMBER, sortable=False),
    "certified_by": Column(Node.certified_by, STRING, sortable=False),
    "created_at": Column(Node.updated_at, TIME, sortable=False),
    "name": Column(Node.node_name, STRING, sortable=False),
    "object_id": Column(Node.node_object_id, STRING, sortable=False),
    "primary_kind": Column(Node.node_primary_kind, STRICT, sortable=False),
}, also=PAGE_PARAMETERS | {ENVIRONMENTS})

HISTORY = list_columns({
    "id": Column(H.id),
    "created_at": Column(H.created_at, TIME),
    "actor": Column(H.actor, STRING),
    "email": Column(H.email, STRING),
    "action": Column(H.action, STRING),
    "target": Column(H.target, STRING),
    "asset_group_tag_id": Column(H.asset_group_tag_id, FilterColumn(ORDERED_PREDICATES, as_int)),
    "environment_id": Column(H.environment_id, STRING, sortable=False),
    "note": Column(H.note, STRING, sortable=False),
}, default_sort=(SortKey("created_at", True),), also=PAGE_PARAMETERS)


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
    condition = where([item for item in filters if item.column != "type"], SELECTORS.expressions)
    seed_condition = where(seed_filters, SELECTORS.expressions)
    if seed_condition is not None:
        having_seed = S.seeds.any(seed_condition)
        condition = having_seed if condition is None else condition & having_seed
    rows, count = await repo.list_selectors(session, tag.id, condition, order_by(sort, SELECTORS.expressions),
                                            page.skip, page.limit)
    if not with_counts:
        return [SelectorView.of(row) for row in rows], count
    members = await repo.selector_member_counts(session, [row.id for row in rows], environments)
    return [SelectorView.of(row, members=0 if row.disabled_at else members.get(row.id, 0)) for row in rows], count
