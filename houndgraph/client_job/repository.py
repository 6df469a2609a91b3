"""SQL of collection jobs and their per-domain results."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import ColumnElement, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.client_job.listing import JOBS
from houndgraph.kit.filters import Filter, where
from houndgraph.kit.pagination import Page
from houndgraph.kit.sorting import SortKey, order_by
from houndgraph.models import Client, ClientJob, DomainCollectionResult, IngestJob
from houndgraph.models.ingest_job import JobStatus


def _joined() -> Any:
    return (select(ClientJob, Client.name).join(Client, Client.id == ClientJob.client_id)
            .outerjoin(IngestJob, IngestJob.id == ClientJob.ingest_job_id).where(ClientJob.deleted_at.is_(None)))


async def by_id(session: AsyncSession, job_id: int, *, for_update: bool = False) -> ClientJob | None:
    statement = select(ClientJob).where(ClientJob.id == job_id, ClientJob.deleted_at.is_(None))
    if for_update:
        statement = statement.with_for_update()
    return await session.scalar(statement)


async def list_jobs(session: AsyncSession, filters: list[Filter], sort: Sequence[SortKey], page: Page | None,
                    *conditions: ColumnElement[bool]) -> tuple[list[tuple[ClientJob, str]], int]:
    """Jobs with their client's name: `conditions` and the filters, sorted, one page (all without one); with
    the count of all that match (counted apart only when there is a page)."""
    statement = _joined().where(*conditions)
    condition = where(filters, JOBS.expressions)
    if condition is not None:
        statement = statement.where(condition)
    ordered = statement.order_by(*order_by(sort, JOBS.expressions), ClientJob.id)
    if page is None:
        found = [(row[0], row[1]) for row in await session.execute(ordered)]
        return found, len(found)
    count = await session.scalar(select(func.count()).select_from(statement.subquery())) or 0
    rows = await session.execute(ordered.offset(page.skip).limit(page.limit))
    return [(row[0], row[1]) for row in rows], count


async def client_name(session: AsyncSession, client_id: uuid.UUID) -> str:
    return await session.scalar(select(Client.name).where(Client.id == client_id)) or ""


async def by_ids(session: AsyncSession, job_ids: Iterable[int]) -> dict[int, ClientJob]:
    rows = await session.scalars(select(ClientJob).where(ClientJob.id.in_(list(job_ids))))
    return {job.id: job for job in rows}


async def results_of(session: AsyncSession, job_ids: Iterable[int]) -> dict[int, list[DomainCollectionResult]]:
    found: dict[int, list[DomainCollectionResult]] = {}
    rows = await session.scalars(select(DomainCollectionResult).where(DomainCollectionResult.job_id.in_(
        list(job_ids))).order_by(DomainCollectionResult.id))
    for row in rows:
        found.setdefault(row.job_id, []).append(row)
    return found


async def completed_counts(session: AsyncSession, client_ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, int]:
    rows = await session.execute(
        select(ClientJob.client_id, func.count()).where(ClientJob.client_id.in_(list(client_ids)),
                                                        ClientJob.status == JobStatus.COMPLETE,
                                                        ClientJob.deleted_at.is_(None))
        .group_by(ClientJob.client_id))
    return {row[0]: row[1] for row in rows}


async def open_jobs_of_client(session: AsyncSession, client_id: uuid.UUID) -> Sequence[ClientJob]:
    return (await session.scalars(select(ClientJob).where(
        ClientJob.client_id == client_id, ClientJob.status.in_((JobStatus.READY, JobStatus.RUNNING)))
        .with_for_update())).all()


async def append_log(session: AsyncSession, job_id: int, line: str) -> None:
    await session.execute(update(ClientJob).where(ClientJob.id == job_id).values(log=ClientJob.log + line))


async def set_current_job(session: AsyncSession, client_id: uuid.UUID, job_id: int | None) -> None:
    await session.execute(update(Client).where(Client.id == client_id).values(current_job_id=job_id))


async def clear_current_job(session: AsyncSession, job_id: int) -> None:
    await session.execute(update(Client).where(Client.current_job_id == job_id).values(current_job_id=None))


async def touch_checkin(session: AsyncSession, client_id: uuid.UUID, now: Any) -> None:
    await session.execute(update(Client).where(Client.id == client_id).values(last_checkin=now))


async def current_job_id(session: AsyncSession, client_id: uuid.UUID) -> int | None:
    return await session.scalar(select(Client.current_job_id).where(Client.id == client_id))
