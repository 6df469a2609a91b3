"""Collection jobs: made from events by the scheduler or ad hoc, fetched, started and ended by their
client, which uploads its files into the job's upload job (the file-upload pipeline ingests them).

Status (reference/behaviour.md §4): READY → RUNNING (`jobs/start`) → INGESTING (`jobs/end` complete) →
ANALYZING → COMPLETE / PARTIALLY COMPLETE / FAILED as its upload job goes (the scheduler step follows it);
FAILED when the client says so; CANCELED by a user; TIMED OUT when never started or never ended.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence

from sqlalchemy import ColumnElement
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.client_job import repository
from houndgraph.client_job.schemas import STATUS_NAMES, JobEndRequest, JobRequest, JobView, ScheduledJobView
from houndgraph.errors import BadRequest, NotFound
from houndgraph.event import service as event_service
from houndgraph.event.service import Hydration
from houndgraph.file_upload import service as file_upload_service
from houndgraph.kit.filters import Filter
from houndgraph.kit.pagination import Page
from houndgraph.kit.repository import add, get_or_404
from houndgraph.kit.sorting import SortKey
from houndgraph.models import ClientJob
from houndgraph.models.base import utcnow
from houndgraph.models.collection import SCOPE_FLAGS
from houndgraph.models.ingest_job import JobStatus
from houndgraph.settings import Settings

INVALID_STATUS = "invalid status"
NO_CURRENT_JOB = "no job is running on this client"
ALREADY_RUNNING = "the client is already running job {job_id}"
NOT_READY = "job {job_id} is not ready to start"
NOT_CANCELABLE = "only a ready or running job can be canceled"
CANCELED_BY_USER = "canceled by a user"
# Statuses shown as finished (reference/behaviour.md §4, "visible" statuses).
FINISHED = (JobStatus.COMPLETE, JobStatus.CANCELED, JobStatus.TIMED_OUT, JobStatus.FAILED, JobStatus.INGESTING,
            JobStatus.ANALYZING, JobStatus.PARTIALLY_COMPLETE)
END_STATES = (JobStatus.COMPLETE, JobStatus.FAILED)


async def views(session: AsyncSession, rows: Sequence[tuple[ClientJob, str]], hydration: Hydration) -> list[JobView]:
    results = await repository.results_of(session, [job.id for job, _ in rows])
    scopes = await event_service.describe_scopes(session, [(job.ous, job.domains) for job, _ in rows], hydration)
    return [JobView.of(job, client_name, ous, domains, results.get(job.id, []))
            for (job, client_name), (ous, domains) in zip(rows, scopes, strict=True)]


async def view(session: AsyncSession, job: ClientJob, hydration: Hydration = Hydration()) -> JobView:
    (shown,) = await views(session, [(job, await repository.client_name(session, job.client_id))], hydration)
    return shown


async def record(session: AsyncSession, job: ClientJob) -> ScheduledJobView:
    """The job as `model.client-scheduled-job`."""
    results = await repository.results_of(session, [job.id])
    return ScheduledJobView.of(job, await repository.client_name(session, job.client_id), results.get(job.id, []))


async def create(session: AsyncSession, client_id: uuid.UUID, request: JobRequest) -> ClientJob:
    """An ad-hoc job, ready at once. The caller checked the client."""
    ous, domains = await event_service.check_collection(session, request)
    job = ClientJob(client_id=client_id, execution_time=utcnow(), status=JobStatus.READY, status_message="",
                       domain_controller=request.domain_controller, ous=ous, domains=domains, log="",
                       **{flag: getattr(request, flag) for flag in SCOPE_FLAGS})
    return await add(session, job)


async def get(session: AsyncSession, job_id: int) -> ClientJob:
    return get_or_404(await repository.by_id(session, job_id))


async def list_jobs(session: AsyncSession, filters: list[Filter], sort: Sequence[SortKey], page: Page | None,
                    *conditions: ColumnElement[bool]) -> tuple[list[tuple[ClientJob, str]], int]:
    return await repository.list_jobs(session, filters, sort, page, *conditions)


def finished() -> ColumnElement[bool]:
    return ClientJob.status.in_(FINISHED)


def of_client(client_id: uuid.UUID) -> ColumnElement[bool]:
    return ClientJob.client_id == client_id


def completed() -> ColumnElement[bool]:
    return ClientJob.status == JobStatus.COMPLETE


async def available(session: AsyncSession, client_id: uuid.UUID, filters: list[Filter],
                    sort: Sequence[SortKey]) -> list[tuple[ClientJob, str]]:
    """The client's jobs that are due; asking counts as a check-in."""
    now = utcnow()
    await repository.touch_checkin(session, client_id, now)
    rows, _ = await repository.list_jobs(session, filters, sort, None, of_client(client_id),
                                         ClientJob.status == JobStatus.READY, ClientJob.execution_time <= now)
    return rows


async def current(session: AsyncSession, client_id: uuid.UUID) -> ClientJob:
    job_id = await repository.current_job_id(session, client_id)
    return get_or_404(await repository.by_id(session, job_id) if job_id is not None else None, NO_CURRENT_JOB)


async def start(session: AsyncSession, client_id: uuid.UUID, job_id: int) -> ClientJob:
    job = await repository.by_id(session, job_id, for_update=True)
    if job is None or job.client_id != client_id:
        raise NotFound()
    running = await repository.current_job_id(session, client_id)
    if running is not None and running != job.id:
        raise BadRequest(ALREADY_RUNNING.format(job_id=running))
    if job.status != JobStatus.READY:
        raise BadRequest(NOT_READY.format(job_id=job.id))
    upload = await file_upload_service.open_job(session, None, None)
    # The same moment as its upload job: the graph stamps the job's files with that start as `lastseen`, and
    # the domain results count the objects seen since this job's start.
    job.status, job.start_time, job.ingest_job_id = JobStatus.RUNNING, upload.start_time, upload.id
    await repository.set_current_job(session, client_id, job.id)
    await session.flush()
    return job


async def upload(session: AsyncSession, settings: Settings, client_id: uuid.UUID, *, is_zip: bool,
                 display_name: str | None, body: AsyncIterator[bytes]) -> None:
    """One collector file into the upload job of the client's running job."""
    job = await current(session, client_id)
    if job.status != JobStatus.RUNNING or job.ingest_job_id is None:
        raise BadRequest(file_upload_service.NOT_RUNNING_TO_ATTACH)
    await file_upload_service.attach_file(session, settings, job.ingest_job_id, is_zip=is_zip,
                                          display_name=display_name, body=body)


def _end_status(raw: int | str) -> JobStatus:
    try:
        status = JobStatus(int(raw)) if isinstance(raw, int) or raw.lstrip("-").isdigit() \
            else STATUS_NAMES[raw.strip().upper()]
    except (KeyError, ValueError):
        raise BadRequest(INVALID_STATUS) from None
    if status not in END_STATES:
        raise BadRequest(INVALID_STATUS)
    return status


async def end(session: AsyncSession, client_id: uuid.UUID, request: JobEndRequest) -> ClientJob:
    """The client is done: a complete run moves on to ingest; a failed one ends here (what it uploaded is
    still ingested)."""
    status = _end_status(request.status)
    job = await current(session, client_id)
    job = await repository.by_id(session, job.id, for_update=True) or job
    if job.status != JobStatus.RUNNING:
        raise BadRequest(NO_CURRENT_JOB)
    if job.ingest_job_id is not None:
        await file_upload_service.end_job(session, job.ingest_job_id)
    job.status = JobStatus.INGESTING if status == JobStatus.COMPLETE else JobStatus.FAILED
    job.status_message = request.message
    job.end_time = utcnow()
    await repository.set_current_job(session, client_id, None)
    await session.flush()
    return job


async def cancel(session: AsyncSession, job_id: int) -> ClientJob:
    job = get_or_404(await repository.by_id(session, job_id, for_update=True))
    if job.status not in (JobStatus.READY, JobStatus.RUNNING):
        raise BadRequest(NOT_CANCELABLE)
    await _cancel(session, job, CANCELED_BY_USER)
    return job


async def _cancel(session: AsyncSession, job: ClientJob, message: str) -> None:
    if job.ingest_job_id is not None:
        await file_upload_service.cancel_job(session, job.ingest_job_id, message)
    job.status, job.status_message, job.end_time = JobStatus.CANCELED, message, utcnow()
    await repository.clear_current_job(session, job.id)
    await session.flush()


async def cancel_open_jobs(session: AsyncSession, client_id: uuid.UUID, message: str) -> None:
    for job in await repository.open_jobs_of_client(session, client_id):
        await _cancel(session, job, message)


async def log_error(session: AsyncSession, client_id: uuid.UUID, task_error: str,
                    additional: dict[str, str]) -> None:
    """A client's enumeration error goes into its running job's log (`GET /api/v2/jobs/{id}/log`); with
    no job running there is no log to keep it in."""
    job_id = await repository.current_job_id(session, client_id)
    if job_id is None:
        return
    details = "".join(f" {key}={value}" for key, value in sorted(additional.items()))
    await repository.append_log(session, job_id, f"{utcnow().isoformat()} {task_error}{details}\n")


async def completed_counts(session: AsyncSession, client_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, int]:
    return await repository.completed_counts(session, client_ids)


async def by_ids(session: AsyncSession, job_ids: Sequence[int]) -> dict[int, ClientJob]:
    return await repository.by_ids(session, job_ids)
