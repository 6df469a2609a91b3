"""Who is in a zone: members of tags and selectors, previews of seeds, search, certification, history."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import psycopg
from sqlalchemy import or_
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.analysis.zones.expansion import Walker, expand
from houndgraph.analysis.zones.model import Certification, CertifyAction, Expansion, Seed, SeedType, TagType
from houndgraph.analysis.zones.seeds import resolve
from houndgraph.analysis.zones.store import node_details
from houndgraph.asset_group_tag import history
from houndgraph.asset_group_tag import repository as repo
from houndgraph.asset_group_tag.listing import CERTIFICATIONS, HISTORY, MEMBERS
from houndgraph.asset_group_tag.schemas import (
    CertificationView,
    CertifyRequest,
    HistoryView,
    MemberCounts,
    MemberInfo,
    MemberView,
    PreviewRequest,
    SearchData,
    SearchRequest,
    SelectorView,
    TagView,
)
from houndgraph.asset_group_tag.service import SELECTOR_DISABLED, check_seeds, get_selector
from houndgraph.auth.context import AuthContext
from houndgraph.datapipe import service as datapipe_service
from houndgraph.db import Database
from houndgraph.errors import BadRequest, Conflict, NotFound
from houndgraph.graph.kind_catalogue import KindCatalogue
from houndgraph.kit.filters import Filter, where
from houndgraph.kit.pagination import Page
from houndgraph.kit.query import ListQuery
from houndgraph.kit.sorting import order_by
from houndgraph.models import AssetGroupHistory, AssetGroupTag, AssetGroupTagSelectorNode

Node = AssetGroupTagSelectorNode
INVALID_EXPANSION = "invalid expansion method"
SEARCH_TOO_SHORT = "search query must be at least 3 characters long"
INVALID_TAG_TYPE = "valid tag_type is required"
INVALID_ACTION = "invalid action: 1 revokes and 2 certifies"
AUTO_CERTIFIED = "cannot change certification status for auto-certified members"
SEARCH_LIMIT = 50


@dataclass(frozen=True, slots=True)
class MemberPage:
    members: list[MemberView]
    count: int


def _member_condition(filters: list[Filter], environments: Sequence[str],
                      columns: Mapping[str, Any] = MEMBERS.expressions) -> Any:
    condition = where(filters, columns)
    if environments:
        scope = Node.node_environment_id.in_(environments)
        condition = scope if condition is None else condition & scope
    return condition


async def _check_enabled(session: AsyncSession, tag: AssetGroupTag, selector_id: int | None) -> None:
    """A disabled selector has no members to list (409, as the reference)."""
    if selector_id is not None and (await get_selector(session, tag, selector_id)).disabled_at is not None:
        raise Conflict(SELECTOR_DISABLED)


async def list_members(session: AsyncSession, tag: AssetGroupTag, query: ListQuery, page: Page,
                       environments: Sequence[str], selector_id: int | None = None) -> MemberPage:
    sort, filters = query.sort, query.filters
    await _check_enabled(session, tag, selector_id)
    rows, count = await repo.list_members(
        session, tag.id, _member_condition(filters, environments), sort, MEMBERS.expressions, page.skip, page.limit,
        selector_id=selector_id, tagged_kind=tag.kind_id if selector_id is None else None)
    return MemberPage([MemberView.of(row, tag.id, source=source) for row, source in rows], count)


async def member_counts(session: AsyncSession, tag: AssetGroupTag, environments: Sequence[str],
                        selector_id: int | None = None) -> MemberCounts:
    await _check_enabled(session, tag, selector_id)
    counts = await repo.member_kind_counts(session, tag.id, selector_id, environments,
                                           tagged_kind=tag.kind_id if selector_id is None else None)
    return MemberCounts(total_count=sum(counts.values()), counts=counts)


async def member_info(session: AsyncSession, tag: AssetGroupTag, node_id: int) -> MemberInfo:
    rows = await repo.member_rows(session, tag.id, node_id)
    if not rows:
        raise NotFound()
    selectors = [await repo.get_selector(session, row.selector_id) for row in rows]
    first = MemberView.of(rows[0], tag.id, source=rows[0].source)
    return MemberInfo(**first.model_dump(exclude={"properties"}),
                      properties=await repo.node_properties(session, node_id) or {},
                      selectors=[SelectorView.of(selector) for selector in selectors if selector is not None])


# --- previews ------------------------------------------------------------------------------------


POOL_WAIT_MARGIN_SECONDS = 1.0


async def preview(database: Database, body: PreviewRequest, limit: int, seconds_left: float) -> list[MemberView]:
    """What seeds would select, without storing anything: run in a thread on a connection of the synchronous pool
    (the expansion library is synchronous), read-only, bounded by what is left of the request's deadline."""
    seeds = [Seed(SeedType(seed.type), seed.value) for seed in check_seeds(body.seeds)]
    if body.expansion not in tuple(Expansion):
        raise BadRequest(INVALID_EXPANSION)
    how = Expansion(body.expansion)

    started = time.monotonic()

    def run() -> list[MemberView]:
        # The wait for a connection ends a little before the deadline, so that a crowd of previews is answered 503
        # (busy, try again) and not a timeout: at the deadline itself the request's own session, closing as the 503
        # is sent, would have its statement cancelled by the deadline.
        with database.pooled_sync(max(seconds_left - POOL_WAIT_MARGIN_SECONDS, 0.0)) as conn:
            left = seconds_left - (time.monotonic() - started)
            conn.execute("SET LOCAL transaction_read_only = on")
            conn.execute(f"SET LOCAL statement_timeout = {max(int(left * 1000), 1)}")
            return _preview(conn, seeds, how, limit)

    return await anyio.to_thread.run_sync(run)


def _preview(conn: psycopg.Connection, seeds: list[Seed], how: Expansion, limit: int) -> list[MemberView]:
    kinds = KindCatalogue(conn).all()
    selected = expand(Walker(conn, kinds), resolve(conn, seeds, kinds), how)
    chosen = sorted(selected, key=lambda node: (selected[node], node))[:limit]
    details = node_details(conn, chosen, {kind_id: name for name, kind_id in kinds.items()})
    rows = conn.execute("SELECT id, properties FROM node WHERE id = ANY(%s)", (chosen,)).fetchall()
    properties: dict[int, dict[str, Any]] = dict(rows)
    members = []
    for node in chosen:
        kind, environment, objectid, name = details[node]
        members.append(MemberView(id=node, object_id=objectid, environment_id=environment, primary_kind=kind,
                                  name=name, source=int(selected[node]), properties=properties.get(node, {})))
    return members


# --- search --------------------------------------------------------------------------------------


async def search(session: AsyncSession, body: SearchRequest) -> SearchData:
    if len(body.query) < 3:
        raise BadRequest(SEARCH_TOO_SHORT)
    if body.tag_type not in tuple(TagType):
        raise BadRequest(INVALID_TAG_TYPE)
    # Labels are searched together with the owned tag, as the UI shows them together.
    types = (TagType.LABEL, TagType.OWNED) if body.tag_type != TagType.ZONE else (TagType.ZONE,)
    tags = [tag for tag in await repo.list_tags(session, None) if tag.type in types
            and (body.asset_group_tag_id is None or tag.id == body.asset_group_tag_id)]
    ids = [tag.id for tag in tags]
    needle = body.query.lower()
    matching = [tag for tag in tags if needle in tag.name.lower()][:SEARCH_LIMIT]
    selectors = await repo.search_selectors(session, ids, body.query, SEARCH_LIMIT)
    members = await repo.search_members(session, ids, body.query, SEARCH_LIMIT)
    return SearchData(tags=[TagView.of(tag) for tag in matching],
                      selectors=[SelectorView.of(selector) for selector in selectors],
                      members=[MemberView.of(row, tag_id, source=row.source) for row, tag_id in members])


# --- certification -------------------------------------------------------------------------------


async def certify(session: AsyncSession, auth: AuthContext, body: CertifyRequest) -> None:
    """Op 4: certify (2) or revoke (1) members; automatic certifications stay as they are."""
    if body.action not in tuple(CertifyAction):
        raise BadRequest(INVALID_ACTION)
    ids = sorted(set(body.member_ids))
    rows = await repo.rows_of_nodes(session, ids)
    missing = set(ids) - {row.node_id for row in rows}
    if missing:
        raise NotFound(f"no member with id {min(missing)}")
    if any(row.certified == Certification.AUTO for row in rows):
        raise BadRequest(AUTO_CERTIFIED)
    certify_it = body.action == CertifyAction.CERTIFY
    state = Certification.MANUAL if certify_it else Certification.REVOKED
    await repo.set_certification(session, ids, state, str(auth.user_id))
    action = history.CERTIFY_MANUAL if certify_it else history.CERTIFY_REVOKED
    done: set[tuple[int, int]] = set()
    for row in rows:
        selector = await repo.get_selector(session, row.selector_id)
        if selector is None or (row.node_id, selector.asset_group_tag_id) in done:
            continue
        done.add((row.node_id, selector.asset_group_tag_id))
        await history.record(session, auth, action, selector.asset_group_tag_id, row.node_object_id,
                             environment_id=row.node_environment_id, note=body.note)
    # A zone that requires certification tags its certified members at the next analysis.
    await datapipe_service.request_analysis(session)


async def list_certifications(session: AsyncSession, filters: list[Filter], page: Page,
                              environments: Sequence[str]) -> tuple[list[CertificationView], int]:
    condition = _member_condition(filters, environments, CERTIFICATIONS.expressions)
    rows, count = await repo.list_certifications(session, condition, page.skip, page.limit)
    return [CertificationView(
        id=row.node_id, object_id=row.node_object_id, environment_id=row.node_environment_id,
        primary_kind=row.node_primary_kind, name=row.node_name, asset_group_tag_id=tag_id,
        created_at=row.updated_at, certified_by=row.certified_by or "", certified=row.certified)
        for row, tag_id in rows], count


# --- history -------------------------------------------------------------------------------------

H = AssetGroupHistory


async def list_history(session: AsyncSession, query: ListQuery, page: Page,
                       text: str | None = None) -> tuple[list[HistoryView], int]:
    condition = where(query.filters, HISTORY.expressions)
    if text:
        pattern = f"%{text}%"
        match = or_(*(column.ilike(pattern) for column in (H.actor, H.email, H.action, H.target, H.note)))
        condition = match if condition is None else condition & match
    rows, count = await repo.list_history(session, condition, order_by(query.sort, HISTORY.expressions), page.skip,
                                          page.limit)
    return [HistoryView.of(row) for row in rows], count
