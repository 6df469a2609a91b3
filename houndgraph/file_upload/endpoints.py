from __future__ import annotations

from fastapi import Query, Request, Response

from houndgraph.auth.dependencies import CurrentAuth
from houndgraph.deps import SessionDep, SettingsDep
from houndgraph.file_upload import service
from houndgraph.file_upload.schemas import (
    ACCEPTED_TYPES,
    DEFAULT_LIMIT,
    JOB_FILTERS,
    JOB_SORT_COLUMNS,
    LIST_PARAMETERS,
    CompletedTaskView,
    IngestJobView,
)
from houndgraph.kit.body import iter_body
from houndgraph.kit.envelopes import DataEnvelope, PageEnvelope
from houndgraph.kit.filters import parse_filters
from houndgraph.kit.ids import parse_int_id
from houndgraph.kit.pagination import parse_page
from houndgraph.kit.sorting import parse_sort

FILE_NAME_HEADER = "X-File-Upload-Name"


async def start_upload_job(auth: CurrentAuth, session: SessionDep) -> DataEnvelope[IngestJobView]:
    job = await service.start_job(session, auth)
    return DataEnvelope(data=IngestJobView.of(job))


async def upload_file(file_upload_job_id: str, request: Request, session: SessionDep,
                      settings: SettingsDep) -> Response:
    # The reference checks the content type before the id.
    is_zip = service.is_zip_upload(request.headers.get("Content-Type"))
    job_id = parse_int_id(file_upload_job_id, signed=True)
    await service.attach_file(session, settings, job_id, is_zip=is_zip,
                              display_name=request.headers.get(FILE_NAME_HEADER), body=iter_body(request))
    return Response(status_code=202)


async def end_upload_job(file_upload_job_id: str, session: SessionDep) -> Response:
    await service.end_job(session, parse_int_id(file_upload_job_id, signed=True))
    return Response(status_code=200)


async def list_upload_jobs(
    request: Request, session: SessionDep, sort_by: list[str] = Query(default=[]),
    skip: str | None = None, limit: str | None = None,
) -> PageEnvelope[list[IngestJobView]]:
    sort = parse_sort(sort_by, JOB_SORT_COLUMNS)
    filters = parse_filters(request.query_params.multi_items(), JOB_FILTERS, ignore=LIST_PARAMETERS)
    page = parse_page(skip, limit, default_limit=DEFAULT_LIMIT)
    jobs, count = await service.list_jobs(session, filters, sort, page)
    return PageEnvelope(count=count, skip=page.skip, limit=page.limit, data=[IngestJobView.of(j) for j in jobs])


async def list_completed_tasks(file_upload_job_id: str, session: SessionDep) -> DataEnvelope[list[CompletedTaskView]]:
    tasks = await service.completed_tasks(session, parse_int_id(file_upload_job_id, signed=True))
    return DataEnvelope(data=[CompletedTaskView.of(task) for task in tasks])


async def list_accepted_types() -> DataEnvelope[list[str]]:
    return DataEnvelope(data=list(ACCEPTED_TYPES))
