"""Events (schedules): operations 21 (create), 22 (update) and 23 (get), their list and delete."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Response

from houndgraph.audit.dependencies import AuditFields
from houndgraph.deps import SessionDep
from houndgraph.event import service
from houndgraph.event.dependencies import HydrationDep
from houndgraph.event.listing import EVENTS
from houndgraph.event.schemas import DEFAULT_LIMIT, EventRequest, EventView
from houndgraph.event.service import Hydration
from houndgraph.kit.answers import answers_nothing
from houndgraph.kit.envelopes import DataEnvelope, PageEnvelope
from houndgraph.kit.ids import parse_int_id
from houndgraph.kit.pagination import Page
from houndgraph.kit.params import list_query, page_query
from houndgraph.kit.query import ListQuery

EventQuery = Annotated[ListQuery, Depends(list_query(EVENTS))]
EventPage = Annotated[Page, Depends(page_query(DEFAULT_LIMIT))]


def _event_id(raw: str) -> int:
    return parse_int_id(raw, bits=32)


async def create_event(body: EventRequest, session: SessionDep, audited: AuditFields) -> DataEnvelope[EventView]:
    event = await service.create(session, body)
    audited.update(event_id=event.id, client_id=str(event.client_id))
    return DataEnvelope(data=await service.view(session, event, Hydration()))


async def get_event(event_id: str, session: SessionDep, shown: HydrationDep) -> DataEnvelope[EventView]:
    event = await service.get(session, _event_id(event_id))
    return DataEnvelope(data=await service.view(session, event, shown))


async def update_event(event_id: str, body: EventRequest, session: SessionDep) -> DataEnvelope[EventView]:
    event = await service.update(session, _event_id(event_id), body)
    return DataEnvelope(data=await service.view(session, event, Hydration()))


@answers_nothing
async def delete_event(event_id: str, session: SessionDep) -> Response:
    await service.delete(session, _event_id(event_id))
    return Response(status_code=200, media_type="text/plain")


async def list_events(query: EventQuery, page: EventPage, shown: HydrationDep,
                      session: SessionDep) -> PageEnvelope[list[EventView]]:
    events, count = await service.list_events(session, query.filters, query.sort, page)
    return PageEnvelope(count=count, skip=page.skip, limit=page.limit,
                        data=await service.views(session, events, shown))
