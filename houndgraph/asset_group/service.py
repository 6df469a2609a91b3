"""The legacy `/api/v2/asset-groups` routes as a view over the two default tags: `admin_tier_0` is Tier
Zero and `owned` is Owned (the reference migrated its asset groups into these tags). Adding or removing
a selector here adds or removes an object-id selector of the tag; analysis does the rest."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.analysis.zones.model import OWNED_NAME, TIER_ZERO_NAME, SeedType
from houndgraph.asset_group import repository
from houndgraph.asset_group.listing import GROUPS, MEMBERS
from houndgraph.asset_group.schemas import (
    AssetGroupView,
    CustomSelectorCount,
    LegacyMember,
    LegacyMemberCounts,
    LegacySelector,
    SelectorSpec,
    UpdatedSelectors,
)
from houndgraph.asset_group_tag import repository as tag_repository
from houndgraph.asset_group_tag import service as tag_service
from houndgraph.asset_group_tag.schemas import SeedBody, SelectorCreate
from houndgraph.auth.context import AuthContext
from houndgraph.errors import BadRequest, NotFound
from houndgraph.graph.kinds import AZNode, primary_kind
from houndgraph.kit.filters import (
    Filter,
    Predicate,
)
from houndgraph.kit.nullable import or_zero
from houndgraph.kit.pagination import Page
from houndgraph.kit.sorting import SortKey
from houndgraph.models import AssetGroupTag, AssetGroupTagSelector

# tag name -> (legacy asset group name, legacy tag)
LEGACY = {TIER_ZERO_NAME: ("Admin Tier Zero", "admin_tier_0"), OWNED_NAME: ("Owned", "owned")}
ADD, REMOVE = "add", "remove"
BAD_ACTION = "invalid action: expected add or remove"


async def _groups(session: AsyncSession) -> list[AssetGroupTag]:
    return [tag for tag in await tag_repository.list_tags(session, None) if tag.name in LEGACY]


async def _group(session: AsyncSession, group_id: int) -> AssetGroupTag:
    for tag in await _groups(session):
        if tag.id == group_id:
            return tag
    raise NotFound()


def _selector(row: AssetGroupTagSelector, group_id: int) -> LegacySelector:
    return LegacySelector(id=row.id, asset_group_id=group_id, name=row.name,
                          selector=row.seeds[0].value if row.seeds else "", system_selector=row.is_default,
                          created_at=or_zero(row.created_at), updated_at=or_zero(row.updated_at))


async def _view(session: AsyncSession, tag: AssetGroupTag) -> AssetGroupView:
    name, legacy_tag = LEGACY[tag.name]
    selectors = await tag_repository.selectors_of(session, tag.id)
    counts = await tag_repository.tag_member_counts(session, [tag.kind_id] if tag.kind_id else [])
    return AssetGroupView(id=tag.id, name=name, tag=legacy_tag, system_group=True,
                          selectors=[_selector(row, tag.id) for row in selectors],
                          member_count=counts.get(tag.kind_id or 0, 0), created_at=or_zero(tag.created_at),
                          updated_at=or_zero(tag.updated_at))


def _matches(value: Any, item: Filter) -> bool:
    match item.predicate:
        case Predicate.EQ:
            return bool(value == item.value)
        case Predicate.NEQ:
            return bool(value != item.value)
        case Predicate.APPROX:
            return str(item.value).lower() in str(value).lower()
        case Predicate.GT:
            return bool(value > item.value)
        case Predicate.GTE:
            return bool(value >= item.value)
        case Predicate.LT:
            return bool(value < item.value)
        case Predicate.LTE:
            return bool(value <= item.value)
    return False


def _select(rows: list[Any], columns: Mapping[str, str], sort: Sequence[SortKey],
            filters: Sequence[Filter]) -> list[Any]:
    """Filter and sort a handful of rows in memory (two groups; the members of one)."""
    kept = [row for row in rows if all(_matches(getattr(row, columns[item.column]), item) for item in filters)]
    for key in reversed(sort):
        kept.sort(key=lambda row: getattr(row, columns[key.column]), reverse=key.descending)
    return kept


async def list_groups(session: AsyncSession, sort: Sequence[SortKey],
                      filters: Sequence[Filter]) -> list[AssetGroupView]:
    return _select([await _view(session, tag) for tag in await _groups(session)], GROUPS.expressions, sort, filters)


async def get_group(session: AsyncSession, group_id: int) -> AssetGroupView:
    return await _view(session, await _group(session, group_id))


async def _members(session: AsyncSession, group_id: int) -> list[LegacyMember]:
    tag = await _group(session, group_id)
    custom = {seed.value.upper() for row in await tag_repository.selectors_of(session, tag.id) if not row.is_default
              for seed in row.seeds if seed.type == SeedType.OBJECT_ID}
    members = []
    for kinds, properties in await repository.tagged_nodes(session, tag.kind_id or 0):
        azure = AZNode.Base in kinds
        object_id = str(properties.get("objectid") or "")
        members.append(LegacyMember(
            asset_group_id=tag.id, object_id=object_id, primary_kind=primary_kind(kinds), kinds=kinds,
            environment_id=str(properties.get("tenantid" if azure else "domainsid") or ""),
            environment_kind=AZNode.Tenant if azure else "Domain", name=str(properties.get("name") or object_id),
            custom_member=object_id.upper() in custom))
    return members


async def list_members(session: AsyncSession, group_id: int, sort: Sequence[SortKey], filters: Sequence[Filter],
                       page: Page) -> tuple[list[LegacyMember], int]:
    members = _select(await _members(session, group_id), MEMBERS.expressions, sort, filters)
    if page.skip > len(members):
        raise BadRequest(f"invalid skip: {page.skip}")
    return members[page.skip:page.skip + page.limit], len(members)


async def member_counts(session: AsyncSession, group_id: int) -> LegacyMemberCounts:
    counts: dict[str, int] = {}
    members = await _members(session, group_id)
    for member in members:
        counts[member.primary_kind] = counts.get(member.primary_kind, 0) + 1
    return LegacyMemberCounts(total_count=len(members), counts=counts)


async def custom_selector_count(session: AsyncSession, group_id: int) -> CustomSelectorCount:
    tag = await _group(session, group_id)
    rows = await tag_repository.selectors_of(session, tag.id)
    return CustomSelectorCount(custom_member_count=sum(1 for row in rows if not row.is_default))


async def update_selectors(session: AsyncSession, auth: AuthContext, group_id: int,
                           specs: Sequence[SelectorSpec]) -> UpdatedSelectors:
    """Add an object-id selector per `add`; delete the custom selectors a `remove` names (by name or sid)."""
    tag = await _group(session, group_id)
    if any(spec.action not in (ADD, REMOVE) for spec in specs):
        raise BadRequest(BAD_ACTION)
    added, removed = [], []
    for spec in specs:
        existing = await tag_repository.selectors_of(session, tag.id)
        if spec.action == ADD:
            if any(row.name == spec.selector_name for row in existing):
                continue
            body = SelectorCreate(name=spec.selector_name or spec.sid,
                                  seeds=[SeedBody(type=SeedType.OBJECT_ID, value=spec.sid)])
            added.append(_selector(await tag_service.create_selector(session, auth, tag, body), tag.id))
            continue
        for row in existing:
            named = row.name == spec.selector_name or any(seed.value.upper() == spec.sid.upper() for seed in row.seeds)
            if named and not row.is_default:
                removed.append(_selector(row, tag.id))
                await tag_service.delete_selector(session, auth, tag, row.id)
    return UpdatedSelectors(added_selectors=added, removed_selectors=removed)
