"""Collection jobs: the client's loop (`jobs/available` → `jobs/start` → `ingest` → `jobs/end`) and what
users see of the jobs."""

from __future__ import annotations

from fastapi import Request, Response

from houndgraph.auth.dependencies import CurrentAuth, CurrentClientId
from houndgraph.client_job import service
from houndgraph.client_job.dependencies import ClientJobQuery, JobPage, JobQuery
from houndgraph.client_job.schemas import (
    JobEndRequest,
    JobLogView,
    JobStartRequest,
    JobView,
    ScheduledJobView,
)
from houndgraph.deps import SessionDep, SettingsDep
from houndgraph.event.dependencies import HydrationDep
from houndgraph.file_upload import service as file_upload_service
from houndgraph.file_upload.schemas import FILE_NAME_HEADER
from houndgraph.kit.answers import answers_nothing
from houndgraph.kit.body import iter_body
from houndgraph.kit.envelopes import DataEnvelope, PageEnvelope
from houndgraph.kit.ids import parse_int_id

# --- the client's own routes --------------------------------------------------------------------


async def list_available_jobs(client_id: CurrentClientId, query: ClientJobQuery, shown: HydrationDep,
                              session: SessionDep) -> DataEnvelope[list[JobView]]:
    rows = await service.available(session, client_id, query.filters, query.sort)
    return DataEnvelope(data=await service.views(session, rows, shown))


async def get_current_job(client_id: CurrentClientId, session: SessionDep) -> DataEnvelope[JobView]:
    job = await service.current(session, client_id)
    return DataEnvelope(data=await service.view(session, job))


async def start_job(body: JobStartRequest, client_id: CurrentClientId,
                    session: SessionDep) -> DataEnvelope[ScheduledJobView]:
    job = await service.start(session, client_id, body.id)
    return DataEnvelope(data=await service.record(session, job))


async def upload_file(request: Request, client_id: CurrentClientId, session: SessionDep,
                      settings: SettingsDep) -> Response:
    is_zip = file_upload_service.is_zip_upload(request.headers.get("Content-Type"))
    await service.upload(session, settings, client_id, is_zip=is_zip,
                         display_name=request.headers.get(FILE_NAME_HEADER), body=iter_body(request))
    return Response(status_code=202)


@answers_nothing
async def ingest(request: Request, auth: CurrentAuth, session: SessionDep, settings: SettingsDep) -> Response:
    """POST /api/v2/ingest: a collection client's file goes into its running job; a user's (the route's guard
    checked GraphDBIngest) is the legacy one-shot ingest, a job of the user's own."""
    if auth.client_id is None:
        is_zip = file_upload_service.is_zip_upload(request.headers.get("Content-Type"))
        await file_upload_service.ingest_once(session, settings, auth, is_zip=is_zip,
                                              display_name=request.headers.get(FILE_NAME_HEADER),
                                              body=iter_body(request))
        return Response(status_code=202)
    return await upload_file(request, auth.client_id, session, settings)


async def end_job(client_id: CurrentClientId, session: SessionDep,
                  body: JobEndRequest | None = None) -> DataEnvelope[ScheduledJobView]:
    job = await service.end(session, client_id, body or JobEndRequest())
    return DataEnvelope(data=await service.record(session, job))


# --- users' routes -------------------------------------------------------------------------------


def _job_id(raw: str) -> int:
    return parse_int_id(raw)


async def list_jobs(query: JobQuery, shown: HydrationDep, session: SessionDep) -> DataEnvelope[list[JobView]]:
    rows, _ = await service.list_jobs(session, query.filters, query.sort, None)
    return DataEnvelope(data=await service.views(session, rows, shown))


async def list_finished_jobs(query: JobQuery, page: JobPage, shown: HydrationDep,
                             session: SessionDep) -> PageEnvelope[list[JobView]]:
    rows, count = await service.list_jobs(session, query.filters, query.sort, page, service.finished())
    return PageEnvelope(count=count, skip=page.skip, limit=page.limit,
                        data=await service.views(session, rows, shown))


async def get_job(job_id: str, shown: HydrationDep, session: SessionDep) -> DataEnvelope[JobView]:
    job = await service.get(session, _job_id(job_id))
    return DataEnvelope(data=await service.view(session, job, shown))


async def cancel_job(job_id: str, session: SessionDep) -> DataEnvelope[JobView]:
    job = await service.cancel(session, _job_id(job_id))
    return DataEnvelope(data=await service.view(session, job))


async def get_job_log(job_id: str, session: SessionDep) -> DataEnvelope[JobLogView]:
    job = await service.get(session, _job_id(job_id))
    return DataEnvelope(data=JobLogView(log=job.log))
