"""`/api/v2/asset-groups`: the legacy view of Tier Zero and Owned."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from pydantic import TypeAdapter, ValidationError

from houndgraph.asset_group import listing, service
from houndgraph.asset_group.schemas import (
    AssetGroupsData,
    AssetGroupView,
    CustomSelectorCount,
    LegacyMemberCounts,
    LegacyMembersData,
    SelectorSpec,
    UpdatedSelectors,
)
from houndgraph.auth.dependencies import CurrentAuth
from houndgraph.deps import SessionDep
from houndgraph.errors import JSON_UNMARSHAL, BadRequest
from houndgraph.kit.envelopes import DataEnvelope, PageEnvelope
from houndgraph.kit.ids import parse_int_id
from houndgraph.kit.pagination import Page
from houndgraph.kit.params import list_query, page_query
from houndgraph.kit.query import ListQuery

MEMBERS_LIMIT = 100
SPECS = TypeAdapter(list[SelectorSpec])
GroupQuery = Annotated[ListQuery, Depends(list_query(listing.GROUPS))]
MemberQuery = Annotated[ListQuery, Depends(list_query(listing.MEMBERS))]
MemberPage = Annotated[Page, Depends(page_query(MEMBERS_LIMIT))]


async def list_asset_groups(query: GroupQuery, session: SessionDep) -> DataEnvelope[AssetGroupsData]:
    groups = await service.list_groups(session, query.sort, query.filters)
    return DataEnvelope(data=AssetGroupsData(asset_groups=groups))


async def get_asset_group(asset_group_id: str, session: SessionDep) -> DataEnvelope[AssetGroupView]:
    return DataEnvelope(data=await service.get_group(session, parse_int_id(asset_group_id, bits=32)))


async def list_asset_group_members(asset_group_id: str, query: MemberQuery, paging: MemberPage,
                                   session: SessionDep) -> PageEnvelope[LegacyMembersData]:
    members, count = await service.list_members(session, parse_int_id(asset_group_id, bits=32), query.sort,
                                                query.filters, paging)
    return PageEnvelope(count=count, skip=paging.skip, limit=paging.limit, data=LegacyMembersData(members=members))


async def asset_group_member_counts(asset_group_id: str, session: SessionDep) -> DataEnvelope[LegacyMemberCounts]:
    return DataEnvelope(data=await service.member_counts(session, parse_int_id(asset_group_id, bits=32)))


async def update_asset_group_selectors(asset_group_id: str, request: Request, auth: CurrentAuth,
                                       session: SessionDep) -> DataEnvelope[UpdatedSelectors]:
    group_id = parse_int_id(asset_group_id, bits=32)
    try:
        specs = SPECS.validate_json(await request.body())
    except ValidationError:
        raise BadRequest(JSON_UNMARSHAL) from None
    return DataEnvelope(data=await service.update_selectors(session, auth, group_id, specs))


async def list_asset_group_collections(asset_group_id: str, session: SessionDep) -> DataEnvelope[list[object]]:
    # Membership is recomputed by each analysis and not kept as dated snapshots: there are no collections.
    await service.get_group(session, parse_int_id(asset_group_id, bits=32))
    return DataEnvelope(data=[])


async def asset_group_custom_selectors(asset_group_id: str, session: SessionDep) -> DataEnvelope[CustomSelectorCount]:
    return DataEnvelope(data=await service.custom_selector_count(session, parse_int_id(asset_group_id, bits=32)))
