"""`/api/v2/asset-group-tags...`: privilege zones, their selectors, members, certification and history."""

from __future__ import annotations

from fastapi import Request, Response

from houndgraph.asset_group_tag import listing, members, service
from houndgraph.asset_group_tag.params import (
    certification_query,
    counts_flag,
    environments,
    history_query,
    member_query,
    page,
    selector_query,
    tag_filters,
)
from houndgraph.asset_group_tag.schemas import (
    CertificationsData,
    CertifyRequest,
    HistoryData,
    MemberCounts,
    MemberData,
    MembersData,
    PreviewRequest,
    SearchData,
    SearchRequest,
    SelectorCreate,
    SelectorData,
    SelectorsData,
    SelectorUpdate,
    SelectorView,
    TagCreate,
    TagData,
    TagsData,
    TagUpdate,
    TagView,
)
from houndgraph.auth.dependencies import CurrentAuth
from houndgraph.deps import DatabaseDep, SessionDep, wait_seconds
from houndgraph.kit.envelopes import DataEnvelope, PageEnvelope
from houndgraph.kit.ids import parse_int_id

MEMBERS_LIMIT = 50
SELECTORS_LIMIT = 50
PREVIEW_LIMIT = 200
HISTORY_LIMIT = 100


# --- tags ----------------------------------------------------------------------------------------


async def list_tags(request: Request, session: SessionDep) -> DataEnvelope[TagsData]:
    with_counts = counts_flag(request)
    tags = await listing.list_tags(session, tag_filters(request), with_counts)
    return DataEnvelope(data=TagsData(tags=tags))


async def create_tag(body: TagCreate, auth: CurrentAuth, session: SessionDep) -> DataEnvelope[TagView]:
    return DataEnvelope(data=TagView.of(await service.create_tag(session, auth, body)))


async def get_tag(asset_group_tag_id: str, session: SessionDep) -> DataEnvelope[TagData]:
    tag = await service.get_tag(session, service.parse_tag_id(asset_group_tag_id))
    return DataEnvelope(data=TagData(tag=await listing.tag_view(session, tag)))


async def update_tag(asset_group_tag_id: str, body: TagUpdate, auth: CurrentAuth,
                     session: SessionDep) -> DataEnvelope[TagView]:
    tag = await service.update_tag(session, auth, service.parse_tag_id(asset_group_tag_id), body)
    return DataEnvelope(data=TagView.of(tag))


async def delete_tag(asset_group_tag_id: str, auth: CurrentAuth, session: SessionDep) -> Response:
    await service.delete_tag(session, auth, service.parse_tag_id(asset_group_tag_id))
    return Response(status_code=204)


# --- selectors -----------------------------------------------------------------------------------


async def list_selectors(asset_group_tag_id: str, request: Request,
                         session: SessionDep) -> PageEnvelope[SelectorsData]:
    tag = await service.get_tag(session, service.parse_tag_id(asset_group_tag_id))
    query, paging = selector_query(request), page(request, SELECTORS_LIMIT)
    selectors, count = await listing.list_selectors(session, tag, query.sort, query.filters, paging,
                                                    counts_flag(request), environments(request))
    return PageEnvelope(count=count, skip=paging.skip, limit=paging.limit, data=SelectorsData(selectors=selectors))


async def create_selector(asset_group_tag_id: str, body: SelectorCreate, auth: CurrentAuth,
                          session: SessionDep) -> DataEnvelope[SelectorView]:
    tag = await service.get_tag(session, service.parse_tag_id(asset_group_tag_id))
    return DataEnvelope(data=SelectorView.of(await service.create_selector(session, auth, tag, body)))


async def get_selector(asset_group_tag_id: str, asset_group_tag_selector_id: str,
                       session: SessionDep) -> DataEnvelope[SelectorData]:
    tag = await service.get_tag(session, service.parse_tag_id(asset_group_tag_id))
    selector = await service.get_selector(session, tag, service.parse_tag_id(asset_group_tag_selector_id))
    return DataEnvelope(data=SelectorData(selector=SelectorView.of(selector)))


async def update_selector(asset_group_tag_id: str, asset_group_tag_selector_id: str, body: SelectorUpdate,
                          auth: CurrentAuth, session: SessionDep) -> DataEnvelope[SelectorView]:
    tag = await service.get_tag(session, service.parse_tag_id(asset_group_tag_id))
    selector = await service.update_selector(session, auth, tag, service.parse_tag_id(asset_group_tag_selector_id),
                                             body)
    return DataEnvelope(data=SelectorView.of(selector))


async def delete_selector(asset_group_tag_id: str, asset_group_tag_selector_id: str, auth: CurrentAuth,
                          session: SessionDep) -> Response:
    tag = await service.get_tag(session, service.parse_tag_id(asset_group_tag_id))
    await service.delete_selector(session, auth, tag, service.parse_tag_id(asset_group_tag_selector_id))
    return Response(status_code=204)


# --- members -------------------------------------------------------------------------------------


async def _members(asset_group_tag_id: str, request: Request, session: SessionDep,
                   selector_id: int | None) -> PageEnvelope[MembersData]:
    tag = await service.get_tag(session, service.parse_tag_id(asset_group_tag_id))
    query, paging = member_query(request), page(request, MEMBERS_LIMIT)
    found = await members.list_members(session, tag, query.sort, query.filters, paging, environments(request),
                                       selector_id)
    return PageEnvelope(count=found.count, skip=paging.skip, limit=paging.limit,
                        data=MembersData(members=found.members))


async def list_members(asset_group_tag_id: str, request: Request, session: SessionDep) -> PageEnvelope[MembersData]:
    return await _members(asset_group_tag_id, request, session, None)


async def list_selector_members(asset_group_tag_id: str, asset_group_tag_selector_id: str, request: Request,
                                session: SessionDep) -> PageEnvelope[MembersData]:
    return await _members(asset_group_tag_id, request, session, service.parse_tag_id(asset_group_tag_selector_id))


async def member_counts(asset_group_tag_id: str, request: Request, session: SessionDep) -> DataEnvelope[MemberCounts]:
    tag = await service.get_tag(session, service.parse_tag_id(asset_group_tag_id))
    return DataEnvelope(data=await members.member_counts(session, tag, environments(request)))


async def selector_member_counts(asset_group_tag_id: str, asset_group_tag_selector_id: str, request: Request,
                                 session: SessionDep) -> DataEnvelope[MemberCounts]:
    tag = await service.get_tag(session, service.parse_tag_id(asset_group_tag_id))
    counts = await members.member_counts(session, tag, environments(request),
                                         service.parse_tag_id(asset_group_tag_selector_id))
    return DataEnvelope(data=counts)


async def get_member(asset_group_tag_id: str, asset_group_member_id: str,
                     session: SessionDep) -> DataEnvelope[MemberData]:
    tag = await service.get_tag(session, service.parse_tag_id(asset_group_tag_id))
    member = await members.member_info(session, tag, parse_int_id(asset_group_member_id))
    return DataEnvelope(data=MemberData(member=member))


async def preview_selectors(body: PreviewRequest, request: Request, database: DatabaseDep) -> DataEnvelope[MembersData]:
    paging = page(request, PREVIEW_LIMIT)
    found = await members.preview(database, body, paging.limit, wait_seconds(request))
    return DataEnvelope(data=MembersData(members=found))


async def search(body: SearchRequest, session: SessionDep) -> DataEnvelope[SearchData]:
    return DataEnvelope(data=await members.search(session, body))


# --- certification and history -------------------------------------------------------------------


async def certify(body: CertifyRequest, auth: CurrentAuth, session: SessionDep) -> Response:
    await members.certify(session, auth, body)
    return Response(status_code=200)


async def list_certifications(request: Request, session: SessionDep) -> PageEnvelope[CertificationsData]:
    paging = page(request, MEMBERS_LIMIT)
    rows, count = await members.list_certifications(session, certification_query(request).filters, paging,
                                                    environments(request))
    return PageEnvelope(count=count, skip=paging.skip, limit=paging.limit, data=CertificationsData(members=rows))


async def list_history(request: Request, session: SessionDep) -> PageEnvelope[HistoryData]:
    query, paging = history_query(request), page(request, HISTORY_LIMIT)
    rows, count = await members.list_history(session, query.sort, query.filters, paging)
    return PageEnvelope(count=count, skip=paging.skip, limit=paging.limit, data=HistoryData(records=rows))


async def search_history(request: Request, session: SessionDep) -> PageEnvelope[HistoryData]:
    query, paging = history_query(request), page(request, HISTORY_LIMIT)
    body = await request.json() if await request.body() else {}
    text = body.get("query") if isinstance(body, dict) else None
    rows, count = await members.list_history(session, query.sort, query.filters, paging,
                                             text if isinstance(text, str) else None)
    return PageEnvelope(count=count, skip=paging.skip, limit=paging.limit, data=HistoryData(records=rows))
