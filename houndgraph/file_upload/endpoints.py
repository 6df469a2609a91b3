from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request, Response

from houndgraph.auth.dependencies import CurrentAuth
from houndgraph.deps import SessionDep, SettingsDep
from houndgraph.file_upload import service
from houndgraph.file_upload.listing import JOBS
from houndgraph.file_upload.schemas import (
    ACCEPTED_TYPES,
    DEFAULT_LIMIT,
    FILE_NAME_HEADER,
    CompletedTaskView,
    IngestJobView,
)
from houndgraph.kit.answers import answers_nothing
from houndgraph.kit.body import iter_body
from houndgraph.kit.envelopes import DataEnvelope, PageEnvelope
from houndgraph.kit.ids import parse_int_id
from houndgraph.kit.pagination import Page
from houndgraph.kit.params import list_query, page_query
from houndgraph.kit.query import ListQuery

JobQuery = Annotated[ListQuery, Depends(list_query(JOBS))]
JobPage = Annotated[Page, Depends(page_query(DEFAULT_LIMIT))]


async def start_upload_job(auth: CurrentAuth, session: SessionDep) -> DataEnvelope[IngestJobView]:
    job = await service.start_job(session, auth)
    return DataEnvelope(data=IngestJobView.of(job))


@answers_nothing
async def upload_file(file_upload_job_id: str, request: Request, session: SessionDep,
                      settings: SettingsDep) -> Response:
    # The reference checks the content type before the id.
    is_zip = service.is_zip_upload(request.headers.get("Content-Type"))
    job_id = parse_int_id(file_upload_job_id, signed=True)
    await service.attach_file(session, settings, job_id, is_zip=is_zip,
                              display_name=request.headers.get(FILE_NAME_HEADER), body=iter_body(request))
    return Response(status_code=202)


@answers_nothing
async def end_upload_job(file_upload_job_id: str, session: SessionDep) -> Response:
    await service.end_job(session, parse_int_id(file_upload_job_id, signed=True))
    return Response(status_code=200)


async def list_upload_jobs(query: JobQuery, page: JobPage, session: SessionDep) -> PageEnvelope[list[IngestJobView]]:
    jobs, count = await service.list_jobs(session, query.filters, query.sort, page)
    return PageEnvelope(count=count, skip=page.skip, limit=page.limit, data=[IngestJobView.of(j) for j in jobs])


async def list_completed_tasks(file_upload_job_id: str, session: SessionDep) -> DataEnvelope[list[CompletedTaskView]]:
    tasks = await service.completed_tasks(session, parse_int_id(file_upload_job_id, signed=True))
    return DataEnvelope(data=[CompletedTaskView.of(task) for task in tasks])


async def list_accepted_types() -> DataEnvelope[list[str]]:
    return DataEnvelope(data=list(ACCEPTED_TYPES))
