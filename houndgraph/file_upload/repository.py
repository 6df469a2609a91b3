"""SQL of upload jobs and their tasks in the request path (the datapipe has its own, over psycopg)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.file_upload.listing import JOBS
from houndgraph.kit.filters import Filter, where
from houndgraph.kit.pagination import Page
from houndgraph.kit.sorting import SortKey, order_by
from houndgraph.models import IngestJob, IngestTask, UploadChunk, User
from houndgraph.models.ingest_task import FINISHED_TASK_STATES


async def user_email(session: AsyncSession, user_id: uuid.UUID) -> str | None:
    return await session.scalar(select(User.email_address).where(User.id == user_id))


async def add_job(session: AsyncSession, job: IngestJob) -> IngestJob:
    session.add(job)
    await session.flush()
    await session.refresh(job)
    return job


async def job_by_id(session: AsyncSession, job_id: int, *, for_update: bool = False) -> IngestJob | None:
    statement = select(IngestJob).where(IngestJob.id == job_id)
    if for_update:
        # Attaching a file and ending the job must not interleave: both lock the job row.
        statement = statement.with_for_update()
    return await session.scalar(statement)


async def add_chunk(session: AsyncSession, upload_id: uuid.UUID, seq: int, data: bytes) -> None:
    await session.execute(insert(UploadChunk).values(upload_id=upload_id, seq=seq, data=data))


async def add_tasks(session: AsyncSession, job: IngestJob, tasks: Sequence[IngestTask], now: datetime) -> None:
    session.add_all(tasks)
    await session.execute(
        update(IngestJob).where(IngestJob.id == job.id)
        .values(total_files=IngestJob.total_files + len(tasks), last_ingest=now, updated_at=now)
    )
    await session.flush()


async def set_status(session: AsyncSession, job_id: int, status: int, now: datetime) -> None:
    await session.execute(update(IngestJob).where(IngestJob.id == job_id).values(status=status, updated_at=now))


async def list_jobs(session: AsyncSession, filters: list[Filter], sort: Sequence[SortKey],
                    page: Page) -> tuple[list[IngestJob], int]:
    condition = where(filters, JOBS.expressions)
    counted = select(func.count()).select_from(IngestJob)
    listed = select(IngestJob)
    if condition is not None:
        counted, listed = counted.where(condition), listed.where(condition)
    count = await session.scalar(counted) or 0
    rows = await session.scalars(
        listed.order_by(*order_by(sort, JOBS.expressions), IngestJob.id).offset(page.skip).limit(page.limit)
    )
    return list(rows), count


async def finished_tasks(session: AsyncSession, job_id: int) -> list[IngestTask]:
    rows = await session.scalars(
        select(IngestTask)
        .where(IngestTask.job_id == job_id, IngestTask.state.in_([str(s) for s in FINISHED_TASK_STATES]))
        .order_by(IngestTask.id)
    )
    return list(rows)
