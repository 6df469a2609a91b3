"""Collection clients: management by users (operation 8 and its companions) and the clients' own
check-in and error report."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Response

from houndgraph.audit.dependencies import AuditFields
from houndgraph.auth.dependencies import CurrentClientId
from houndgraph.client import service
from houndgraph.client.listing import CLIENTS
from houndgraph.client.schemas import (
    DEFAULT_LIMIT,
    ClientCheckIn,
    ClientCreate,
    ClientError,
    ClientUpdate,
    ClientView,
    NewClientView,
)
from houndgraph.client_job import service as job_service
from houndgraph.client_job.dependencies import ClientJobQuery, JobPage
from houndgraph.client_job.schemas import JobRequest, JobView, ScheduledJobView
from houndgraph.deps import SessionDep
from houndgraph.event.dependencies import HydrationDep
from houndgraph.event.service import Hydration
from houndgraph.kit.answers import answers_nothing
from houndgraph.kit.envelopes import DataEnvelope, PageEnvelope
from houndgraph.kit.ids import parse_uuid
from houndgraph.kit.pagination import Page
from houndgraph.kit.params import list_query, page_query
from houndgraph.kit.query import ListQuery
from houndgraph.token.schemas import NewTokenView

ClientQuery = Annotated[ListQuery, Depends(list_query(CLIENTS))]
ClientPage = Annotated[Page, Depends(page_query(DEFAULT_LIMIT))]


async def create_client(body: ClientCreate, session: SessionDep, audited: AuditFields) -> DataEnvelope[NewClientView]:
    audited.update(name=body.name)
    client = await service.create(session, body)
    audited.update(client_id=str(client.id))
    return DataEnvelope(data=client)


async def list_clients(query: ClientQuery, page: ClientPage, shown: HydrationDep,
                       session: SessionDep) -> PageEnvelope[list[ClientView]]:
    clients, count = await service.list_clients(session, query.filters, query.sort, page)
    return PageEnvelope(count=count, skip=page.skip, limit=page.limit,
                        data=await service.views(session, clients, shown))


async def get_client(client_id: str, shown: HydrationDep, session: SessionDep) -> DataEnvelope[ClientView]:
    client = await service.get(session, parse_uuid(client_id))
    return DataEnvelope(data=await service.view(session, client, shown))


async def update_client(client_id: str, body: ClientUpdate, session: SessionDep) -> DataEnvelope[ClientView]:
    client = await service.update(session, parse_uuid(client_id), body)
    return DataEnvelope(data=await service.view(session, client, Hydration()))


@answers_nothing
async def delete_client(client_id: str, session: SessionDep) -> Response:
    await service.delete(session, parse_uuid(client_id))
    return Response(status_code=200, media_type="text/plain")


async def replace_client_token(client_id: str, session: SessionDep) -> DataEnvelope[NewTokenView]:
    token = await service.replace_token(session, parse_uuid(client_id))
    return DataEnvelope(data=NewTokenView.of(token))


async def create_client_job(client_id: str, body: JobRequest, session: SessionDep, audited: AuditFields
                            ) -> DataEnvelope[ScheduledJobView]:
    client = await service.get(session, parse_uuid(client_id))
    job = await job_service.create(session, client.id, body)
    audited.update(job_id=job.id)
    return DataEnvelope(data=await job_service.record(session, job))


async def list_completed_jobs(client_id: str, query: ClientJobQuery, page: JobPage, shown: HydrationDep,
                              session: SessionDep) -> PageEnvelope[list[JobView]]:
    client = await service.get(session, parse_uuid(client_id))
    rows, count = await job_service.list_jobs(session, query.filters, query.sort, page,
                                              job_service.of_client(client.id), job_service.finished())
    return PageEnvelope(count=count, skip=page.skip, limit=page.limit,
                        data=await job_service.views(session, rows, shown))


# --- the client's own routes --------------------------------------------------------------------


async def check_in(body: ClientCheckIn, client_id: CurrentClientId, session: SessionDep) -> DataEnvelope[ClientView]:
    client = await service.check_in(session, client_id, body)
    return DataEnvelope(data=await service.view(session, client, Hydration()))


@answers_nothing
async def report_error(body: ClientError, client_id: CurrentClientId, session: SessionDep) -> Response:
    await job_service.log_error(session, client_id, body.task_error, body.additional)
    return Response(status_code=202)
