"""Events (schedules): when a client collects what. Also the checks and display of a collection scope,
which ad-hoc jobs share (reference/behaviour.md §4)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.db import remaining_seconds
from houndgraph.errors import BadRequest
from houndgraph.event import repository
from houndgraph.event.recurrence import SEARCH_SECONDS, RecurrenceError, next_occurrence, parse
from houndgraph.event.schemas import CollectionRequest, DomainDetails, EventRequest, EventView, OUDetails
from houndgraph.kit.filters import Filter
from houndgraph.kit.pagination import Page
from houndgraph.kit.repository import add, get_or_404
from houndgraph.kit.sorting import SortKey
from houndgraph.models import ClientEvent
from houndgraph.models.base import utcnow
from houndgraph.models.collection import COLLECTION_FLAGS, SCOPE_FLAGS

NO_COLLECTION_FLAG = "at least one data collection flag must be provided"
SCOPE_NOT_ONE = "may only scope collection by exactly one of OU, Domain, or All Trusted Domains"
INVALID_RRULE = "invalid rrule specified: {reason}"
NO_RECORD = "no record found for {value}"
UNKNOWN_CLIENT = "no client found for id {client_id}"
OU_PREFIX = "OU="
OU_KIND, DOMAIN_KIND = "OU", "Domain"


@dataclass(frozen=True, slots=True)
class Hydration:
    """Whether stored OU and domain references are shown with what the graph says of them."""

    domains: bool = True
    ous: bool = True


def _is_dn(value: str) -> bool:
    return value.upper().startswith(OU_PREFIX)


async def check_collection(session: AsyncSession, request: CollectionRequest) -> tuple[list[str], list[str]]:
    """The request's OUs and domains, normalised, once the flags and scope pass; else 400 with §4's message."""
    if not any(getattr(request, flag) for flag in COLLECTION_FLAGS):
        raise BadRequest(NO_COLLECTION_FLAG)
    ous = [value.strip() for value in request.ous if value.strip()]
    domains = [value.strip().upper() for value in request.domains if value.strip()]
    if [bool(ous), bool(domains), request.all_trusted_domains].count(True) != 1:
        raise BadRequest(SCOPE_NOT_ONE)
    found = await _lookup(session, ous, domains)
    for value in ous:
        if _key(value) not in found[OU_KIND]:
            raise BadRequest(NO_RECORD.format(value=value))
    for value in domains:
        if value not in found[DOMAIN_KIND]:
            raise BadRequest(NO_RECORD.format(value=value))
    return [value.upper() if not _is_dn(value) else value for value in ous], domains


def _key(value: str) -> str:
    return value.upper()


async def _lookup(session: AsyncSession, ous: Sequence[str], domains: Sequence[str]
                  ) -> dict[str, dict[str, dict[str, Any]]]:
    """Graph nodes by the (upper-cased) reference that named them: OUs by DN or object id, domains by id."""
    found: dict[str, dict[str, dict[str, Any]]] = {OU_KIND: {}, DOMAIN_KIND: {}}
    dns = [_key(value) for value in ous if _is_dn(value)]
    ou_ids = [_key(value) for value in ous if not _is_dn(value)]
    for properties in await repository.scope_nodes(session, OU_KIND, ou_ids, dns):
        for reference in (properties.get("objectid"), properties.get("distinguishedname")):
            if isinstance(reference, str):
                found[OU_KIND][_key(reference)] = properties
    for properties in await repository.scope_nodes(session, DOMAIN_KIND, [_key(value) for value in domains], []):
        found[DOMAIN_KIND][_key(str(properties.get("objectid", "")))] = properties
    return found


Scope = tuple[Sequence[str], Sequence[str]]


async def describe_scopes(session: AsyncSession, scopes: Sequence[Scope], hydration: Hydration
                          ) -> list[tuple[list[OUDetails], list[DomainDetails]]]:
    """Each scope's stored OU and domain references as display objects: with name, type and whether the
    graph still has them when hydrated, else the bare reference. One graph lookup serves all the scopes."""
    found = await _lookup(session, [value for ous, _ in scopes for value in ous] if hydration.ous else (),
                          [value for _, domains in scopes for value in domains] if hydration.domains else ())
    return [(_ou_views(found[OU_KIND], ous, hydration.ous), _domain_views(found[DOMAIN_KIND], domains,
                                                                        hydration.domains))
            for ous, domains in scopes]


def _ou_views(found: dict[str, dict[str, Any]], ous: Sequence[str], hydrated: bool) -> list[OUDetails]:
    if not hydrated:
        return [OUDetails(objectid=value) for value in ous]
    views = []
    for value in ous:
        properties = found.get(_key(value))
        views.append(OUDetails(
            objectid=str(properties.get("objectid", value)) if properties else value,
            name=properties.get("name") if properties else None, exists=properties is not None,
            distinguishedname=properties.get("distinguishedname") if properties else None, type=OU_KIND))
    return views


def _domain_views(found: dict[str, dict[str, Any]], domains: Sequence[str], hydrated: bool
                  ) -> list[DomainDetails]:
    if not hydrated:
        return [DomainDetails(objectid=value) for value in domains]
    views = []
    for value in domains:
        properties = found.get(_key(value))
        views.append(DomainDetails(objectid=value, name=properties.get("name") if properties else None,
                                   exists=properties is not None, type=DOMAIN_KIND))
    return views


async def next_run(session: AsyncSession, rrule: str, after: datetime) -> datetime:
    """The rule's first occurrence at or after `after`; 400 for a rule a schedule cannot follow or that never
    runs again. The search runs apart from the event loop, and ends by the request's deadline."""
    try:
        parse(rrule)
        seconds = min(SEARCH_SECONDS, remaining_seconds(session))
        found = await asyncio.to_thread(next_occurrence, rrule, after, inclusive=True, seconds=seconds)
    except RecurrenceError as error:
        raise BadRequest(INVALID_RRULE.format(reason=error)) from None
    if found is None:
        # A schedule that would never run again (UNTIL or COUNT spent, or a date that does not exist).
        raise BadRequest(INVALID_RRULE.format(reason="it has no occurrence from now on"))
    return found


async def _apply(session: AsyncSession, event: ClientEvent, request: EventRequest) -> None:
    try:
        parse(request.rrule)
    except RecurrenceError as error:
        raise BadRequest(INVALID_RRULE.format(reason=error)) from None
    ous, domains = await check_collection(session, request)
    event.next_scheduled_at = await next_run(session, request.rrule, utcnow())
    event.rrule = request.rrule.strip()
    for flag in SCOPE_FLAGS:
        setattr(event, flag, getattr(request, flag))
    event.ous, event.domains = ous, domains


async def create(session: AsyncSession, request: EventRequest, client_id: uuid.UUID | None = None) -> ClientEvent:
    """A new schedule of `client_id` (or the request's own `client_id`)."""
    owner = client_id or request.client_id
    if owner is None or not await repository.client_is_live(session, owner):
        raise BadRequest(UNKNOWN_CLIENT.format(client_id=owner or ""))
    event = ClientEvent(client_id=owner)
    await _apply(session, event, request)
    return await add(session, event)


async def get(session: AsyncSession, event_id: int) -> ClientEvent:
    return get_or_404(await repository.live_by_id(session, event_id))


async def update(session: AsyncSession, event_id: int, request: EventRequest) -> ClientEvent:
    event = await get(session, event_id)
    await _apply(session, event, request)
    await session.flush()
    return event


async def delete(session: AsyncSession, event_id: int) -> None:
    """Soft: jobs already made from it keep their history; no new one is made."""
    event = await get(session, event_id)
    event.deleted_at = utcnow()
    event.next_scheduled_at = None
    await session.flush()


async def list_events(session: AsyncSession, filters: list[Filter], sort: Sequence[SortKey],
                      page: Page) -> tuple[Sequence[ClientEvent], int]:
    return await repository.list_events(session, filters, sort, page)


async def of_clients(session: AsyncSession, client_ids: Sequence[uuid.UUID]) -> Sequence[ClientEvent]:
    return await repository.of_clients(session, client_ids)


async def delete_of_client(session: AsyncSession, client_id: uuid.UUID) -> None:
    await repository.soft_delete_of_client(session, client_id, utcnow())


async def views(session: AsyncSession, events: Sequence[ClientEvent], hydration: Hydration) -> list[EventView]:
    scopes = await describe_scopes(session, [(event.ous, event.domains) for event in events], hydration)
    return [EventView.of(event, ous, domains) for event, (ous, domains) in zip(events, scopes, strict=True)]


async def view(session: AsyncSession, event: ClientEvent, hydration: Hydration) -> EventView:
    (shown,) = await views(session, [event], hydration)
    return shown
