"""`/api/v2/asset-group-tags...`: privilege zones, their selectors, members, certification and history."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Body, Depends, Query, Request, Response

from houndgraph.asset_group_tag import listing, members, service
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
from houndgraph.audit.dependencies import AuditFields
from houndgraph.auth.dependencies import CurrentAuth
from houndgraph.deps import DatabaseDep, SessionDep, request_deadline
from houndgraph.errors import BadRequest
from houndgraph.kit.answers import answers_nothing
from houndgraph.kit.envelopes import DataEnvelope, PageEnvelope
from houndgraph.kit.ids import parse_int_id
from houndgraph.kit.pagination import Page, parse_page
from houndgraph.kit.params import list_query, page_query
from houndgraph.kit.query import ListQuery, parse_bool

MEMBERS_LIMIT = 50
SELECTORS_LIMIT = 50
PREVIEW_LIMIT = 200
HISTORY_LIMIT = 100
BAD_COUNTS = "Invalid value specified for include counts"


def include_counts(counts: Annotated[str | None, Query(description="Add counts to each item.")] = None) -> bool:
    try:
        return parse_bool(counts, False)
    except BadRequest:
        raise BadRequest(BAD_COUNTS) from None


def preview_limit(limit: Annotated[str | None, Query(description="Most members returned (default 200).")] = None
                  ) -> int:
    return parse_page(None, limit, default_limit=PREVIEW_LIMIT).limit


TagQuery = Annotated[ListQuery, Depends(list_query(listing.TAGS))]
SelectorQuery = Annotated[ListQuery, Depends(list_query(listing.SELECTORS))]
MemberQuery = Annotated[ListQuery, Depends(list_query(listing.MEMBERS))]
CertificationQuery = Annotated[ListQuery, Depends(list_query(listing.CERTIFICATIONS))]
HistoryQuery = Annotated[ListQuery, Depends(list_query(listing.HISTORY))]
SelectorPage = Annotated[Page, Depends(page_query(SELECTORS_LIMIT))]
MemberPage = Annotated[Page, Depends(page_query(MEMBERS_LIMIT))]
HistoryPage = Annotated[Page, Depends(page_query(HISTORY_LIMIT))]
Counts = Annotated[bool, Depends(include_counts)]
Environments = Annotated[list[str] | None, Query(description="Only members of these domains / tenants.")]
PreviewLimit = Annotated[int, Depends(preview_limit)]


# --- tags ----------------------------------------------------------------------------------------


async def list_tags(query: TagQuery, counts: Counts, session: SessionDep) -> DataEnvelope[TagsData]:
    tags = await listing.list_tags(session, query.filters, counts)
    return DataEnvelope(data=TagsData(tags=tags))


async def create_tag(body: TagCreate, auth: CurrentAuth, session: SessionDep,
                     audited: AuditFields) -> DataEnvelope[TagView]:
    audited.update(name=body.name)
    tag = await service.create_tag(session, auth, body)
    audited.update(asset_group_tag_id=tag.id)
    return DataEnvelope(data=TagView.of(tag))


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


async def list_selectors(asset_group_tag_id: str, query: SelectorQuery, paging: SelectorPage, counts: Counts,
                         session: SessionDep, environments: Environments = None) -> PageEnvelope[SelectorsData]:
    tag = await service.get_tag(session, service.parse_tag_id(asset_group_tag_id))
    selectors, count = await listing.list_selectors(session, tag, query, paging, counts, environments or [])
    return PageEnvelope(count=count, skip=paging.skip, limit=paging.limit, data=SelectorsData(selectors=selectors))


async def create_selector(asset_group_tag_id: str, body: SelectorCreate, auth: CurrentAuth,
                          session: SessionDep, audited: AuditFields) -> DataEnvelope[SelectorView]:
    audited.update(name=body.name)
    tag = await service.get_tag(session, service.parse_tag_id(asset_group_tag_id))
    selector = await service.create_selector(session, auth, tag, body)
    audited.update(asset_group_tag_selector_id=selector.id)
    return DataEnvelope(data=SelectorView.of(selector))


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


async def _members(session: SessionDep, asset_group_tag_id: str, query: ListQuery, paging: Page,
                   environments: list[str] | None, selector_id: int | None) -> PageEnvelope[MembersData]:
    tag = await service.get_tag(session, service.parse_tag_id(asset_group_tag_id))
    found = await members.list_members(session, tag, query, paging, environments or [], selector_id)
    return PageEnvelope(count=found.count, skip=paging.skip, limit=paging.limit,
                        data=MembersData(members=found.members))


async def list_members(asset_group_tag_id: str, query: MemberQuery, paging: MemberPage, session: SessionDep,
                       environments: Environments = None) -> PageEnvelope[MembersData]:
    return await _members(session, asset_group_tag_id, query, paging, environments, None)


async def list_selector_members(asset_group_tag_id: str, asset_group_tag_selector_id: str, query: MemberQuery,
                                paging: MemberPage, session: SessionDep,
                                environments: Environments = None) -> PageEnvelope[MembersData]:
    selector_id = service.parse_tag_id(asset_group_tag_selector_id)
    return await _members(session, asset_group_tag_id, query, paging, environments, selector_id)


async def member_counts(asset_group_tag_id: str, session: SessionDep,
                        environments: Environments = None) -> DataEnvelope[MemberCounts]:
    tag = await service.get_tag(session, service.parse_tag_id(asset_group_tag_id))
    return DataEnvelope(data=await members.member_counts(session, tag, environments or []))


async def selector_member_counts(asset_group_tag_id: str, asset_group_tag_selector_id: str, session: SessionDep,
                                 environments: Environments = None) -> DataEnvelope[MemberCounts]:
    tag = await service.get_tag(session, service.parse_tag_id(asset_group_tag_id))
    counts = await members.member_counts(session, tag, environments or [],
                                         service.parse_tag_id(asset_group_tag_selector_id))
    return DataEnvelope(data=counts)


async def get_member(asset_group_tag_id: str, asset_group_member_id: str,
                     session: SessionDep) -> DataEnvelope[MemberData]:
    tag = await service.get_tag(session, service.parse_tag_id(asset_group_tag_id))
    member = await members.member_info(session, tag, parse_int_id(asset_group_member_id))
    return DataEnvelope(data=MemberData(member=member))


async def preview_selectors(body: PreviewRequest, limit: PreviewLimit, request: Request,
                            database: DatabaseDep) -> DataEnvelope[MembersData]:
    deadline = request_deadline(request)
    found = await members.preview(database, body, limit, deadline.remaining() if deadline else 30.0)
    return DataEnvelope(data=MembersData(members=found))


async def search(body: SearchRequest, session: SessionDep) -> DataEnvelope[SearchData]:
    return DataEnvelope(data=await members.search(session, body))


# --- certification and history -------------------------------------------------------------------


@answers_nothing
async def certify(body: CertifyRequest, auth: CurrentAuth, session: SessionDep, audited: AuditFields) -> Response:
    audited.update(member_ids=body.member_ids, certification_action=body.action)
    await members.certify(session, auth, body)
    return Response(status_code=200)


async def list_certifications(query: CertificationQuery, paging: MemberPage, session: SessionDep,
                              environments: Environments = None) -> PageEnvelope[CertificationsData]:
    rows, count = await members.list_certifications(session, query.filters, paging, environments or [])
    return PageEnvelope(count=count, skip=paging.skip, limit=paging.limit, data=CertificationsData(members=rows))


async def list_history(query: HistoryQuery, paging: HistoryPage, session: SessionDep) -> PageEnvelope[HistoryData]:
    rows, count = await members.list_history(session, query, paging)
    return PageEnvelope(count=count, skip=paging.skip, limit=paging.limit, data=HistoryData(records=rows))


async def search_history(query: HistoryQuery, paging: HistoryPage, session: SessionDep,
                         body: Annotated[dict[str, Any] | None, Body()] = None) -> PageEnvelope[HistoryData]:
    text = (body or {}).get("query")
    rows, count = await members.list_history(session, query, paging, text if isinstance(text, str) else None)
    return PageEnvelope(count=count, skip=paging.skip, limit=paging.limit, data=HistoryData(records=rows))
