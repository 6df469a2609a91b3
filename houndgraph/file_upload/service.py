"""Upload jobs: start, attach files, end, list. Files are kept in the database, in the request's transaction with
their tasks; the datapipe ingests them. Nothing here commits: the request boundary does."""

from __future__ import annotations

import asyncio
import uuid
import zipfile
from collections.abc import AsyncIterator, Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.auth.context import AuthContext
from houndgraph.errors import BadRequest, NotFound
from houndgraph.file_upload import repository, storage
from houndgraph.file_upload.schemas import JSON_TYPE, ZIP_TYPES
from houndgraph.ingest.errors import IngestError
from houndgraph.ingest.files import EMPTY_ZIP_MAGIC, ZIP_MAGIC, EmptyArchive, plan_tasks
from houndgraph.ingest.scan import validate_upload
from houndgraph.kit.filters import Filter
from houndgraph.kit.pagination import Page
from houndgraph.kit.repository import get_or_404
from houndgraph.kit.sorting import SortKey
from houndgraph.models import IngestJob, IngestTask
from houndgraph.models.base import utcnow
from houndgraph.models.ingest_job import JobStatus
from houndgraph.models.ingest_task import TaskState
from houndgraph.settings import Settings

CONTENT_TYPE_REFUSED = "Content type must be application/json or application/zip"
NOT_RUNNING_TO_ATTACH = "job must be in running status to attach files"
NOT_RUNNING_TO_END = "job must be in running status to end"
ZIP_SENT_AS_JSON = "the body is a zip archive, not JSON: send it with Content-Type application/zip"
# A display name is shown back to users, never used as a path; keep it to a sane length.
MAX_DISPLAY_NAME = 255


def is_zip_upload(content_type: str | None) -> bool:
    """True for the zip content types, False for JSON; any other (or none) is refused."""
    media_type = (content_type or "").split(";", 1)[0].strip().lower()
    if media_type == JSON_TYPE:
        return False
    if media_type in ZIP_TYPES:
        return True
    raise BadRequest(CONTENT_TYPE_REFUSED)


async def start_job(session: AsyncSession, auth: AuthContext) -> IngestJob:
    return await open_job(session, auth.user_id, await repository.user_email(session, auth.user_id))


async def open_job(session: AsyncSession, user_id: uuid.UUID | None, email: str | None) -> IngestJob:
    """A running upload job: a user's, or one without a user that a collection client's job uploads into."""
    now = utcnow()
    job = IngestJob(
        user_id=user_id, user_email_address=email, status=JobStatus.RUNNING, status_message="",
        start_time=now, last_ingest=now, total_files=0, completed_files=0, failed_files=0, nodes_written=0,
        edges_written=0,
    )
    return await repository.add_job(session, job)


async def _running_job(session: AsyncSession, job_id: int, refusal: str, *, for_update: bool = False) -> IngestJob:
    job = get_or_404(await repository.job_by_id(session, job_id, for_update=for_update))
    if job.status != JobStatus.RUNNING:
        raise BadRequest(refusal)
    return job


async def attach_file(session: AsyncSession, settings: Settings, job_id: int, *, is_zip: bool,
                      display_name: str | None, body: AsyncIterator[bytes]) -> list[IngestTask]:
    """Check one uploaded file, keep it in the database and queue a task per JSON document in it (all in the
    request's transaction)."""
    await _running_job(session, job_id, NOT_RUNNING_TO_ATTACH)
    suffix = ".zip" if is_zip else ".json"
    spooled = await storage.spool_body(body, settings.uploads_dir, suffix)
    try:
        name = (display_name or "").strip()[:MAX_DISPLAY_NAME] or f"{spooled.upload_id.hex}{suffix}"
        tasks = await asyncio.to_thread(_plan_tasks, settings, job_id, spooled,
                                        storage.stored_name(job_id, spooled, suffix), is_zip, name)
        await _store_chunks(session, spooled)
        # Checked again under the row lock: the job may have been ended or timed out meanwhile.
        job = await _running_job(session, job_id, NOT_RUNNING_TO_ATTACH, for_update=True)
        await repository.add_tasks(session, job, tasks, utcnow())
    finally:
        storage.discard(spooled.path)
    return tasks


async def _store_chunks(session: AsyncSession, spooled: storage.SpooledUpload) -> None:
    pieces = storage.read_chunks(spooled.path)
    seq = 0
    while (piece := await asyncio.to_thread(next, pieces, None)) is not None:
        await repository.add_chunk(session, spooled.upload_id, seq, piece)
        seq += 1


def _plan_tasks(settings: Settings, job_id: int, spooled: storage.SpooledUpload, stored_name: str, is_zip: bool,
                name: str) -> list[IngestTask]:
    """The tasks of an upload, or BadRequest naming every reason the file is refused."""
    path = spooled.path
    if not is_zip:
        with path.open("rb") as handle:
            if handle.read(4) in (ZIP_MAGIC, EMPTY_ZIP_MAGIC):
                raise BadRequest(ZIP_SENT_AS_JSON)
        # The whole document is checked now, as the reference does, so a bad file is refused at once.
        errors = validate_upload(path)
        if errors:
            raise BadRequest(messages=errors)
        return [_task(job_id, name, None, spooled, stored_name, None, spooled.size)]
    # An archive's header and limits are checked now; each member is checked when it is read.
    try:
        planned = plan_tasks(path, max_unzipped_bytes=settings.max_unzipped_bytes,
                             max_ratio=settings.max_zip_ratio, expect_zip=True)
    except EmptyArchive as exc:
        raise BadRequest(str(exc), messages=[str(exc), *exc.skipped]) from exc
    except IngestError as exc:
        raise BadRequest(str(exc)) from exc
    with zipfile.ZipFile(path) as archive:
        sizes = {info.filename: info.file_size for info in archive.infolist()}
    return [_task(job_id, task.file_name, name, spooled, stored_name, task.member_name,
                  sizes.get(task.member_name or "", 0), task.warnings) for task in planned]


def _task(job_id: int, file_name: str, parent: str | None, spooled: storage.SpooledUpload, stored_name: str,
          member: str | None, document_bytes: int, warnings: list[str] | None = None) -> IngestTask:
    return IngestTask(
        job_id=job_id, file_name=file_name, parent_file_name=parent, stored_path=stored_name,
        upload_id=spooled.upload_id, document_bytes=document_bytes, member_name=member, owns_file=True,
        state=TaskState.PENDING, errors=[], warnings=warnings or [], attempts=0, nodes_written=0, edges_written=0,
    )


async def ingest_once(session: AsyncSession, settings: Settings, auth: AuthContext, *, is_zip: bool,
                      display_name: str | None, body: AsyncIterator[bytes]) -> IngestJob:
    """The legacy `POST /ingest`: a job of its own holding this one file, ended at once for the datapipe."""
    job = await start_job(session, auth)
    await attach_file(session, settings, job.id, is_zip=is_zip, display_name=display_name, body=body)
    await end_job(session, job.id)
    return job


async def end_job(session: AsyncSession, job_id: int) -> None:
    await _running_job(session, job_id, NOT_RUNNING_TO_END, for_update=True)
    await repository.set_status(session, job_id, JobStatus.INGESTING, utcnow())


async def cancel_job(session: AsyncSession, job_id: int, message: str) -> None:
    """Stop a job the client will not finish: files not yet read are never read (the datapipe skips
    canceled jobs)."""
    job = await repository.job_by_id(session, job_id, for_update=True)
    if job is not None and job.status == JobStatus.RUNNING:
        job.status, job.status_message, job.end_time = JobStatus.CANCELED, message, utcnow()
        await session.flush()


async def list_jobs(session: AsyncSession, filters: list[Filter], sort: Sequence[SortKey],
                    page: Page) -> tuple[list[IngestJob], int]:
    return await repository.list_jobs(session, filters, sort, page)


async def completed_tasks(session: AsyncSession, job_id: int) -> list[IngestTask]:
    if await repository.job_by_id(session, job_id) is None:
        raise NotFound()
    return await repository.finished_tasks(session, job_id)
