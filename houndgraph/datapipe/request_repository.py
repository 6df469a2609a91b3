"""SQL of the datapipe in the request path: its status row, analysis requests, queued purges."""

from __future__ import annotations

from sqlalchemy import column, select, table
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.models import DatapipeStatus, PurgeRequest, SourceKind

# Run here in the request's transaction and by the worker's loop (`worker.loop_repository.request_analysis`):
# one definition of what an analysis request is.
REQUEST_ANALYSIS = "UPDATE datapipe_status SET analysis_requested = true WHERE id = 1"

# The graph's kind catalogue (a graph table, created by migration 0002 without an ORM model).
_KIND = table("kind", column("name"))


async def status(session: AsyncSession) -> DatapipeStatus | None:
    return await session.scalar(select(DatapipeStatus).where(DatapipeStatus.id == 1))


async def request_analysis(session: AsyncSession) -> None:
    await (await session.connection()).exec_driver_sql(REQUEST_ANALYSIS)


async def cancel_analysis_request(session: AsyncSession) -> bool:
    """Withdraw a pending analysis request; False when there was none."""
    row = await session.scalar(select(DatapipeStatus).where(DatapipeStatus.id == 1).with_for_update())
    if row is None or not row.analysis_requested:
        return False
    row.analysis_requested = False
    await session.flush()
    return True


async def oldest_purge_request(session: AsyncSession) -> PurgeRequest | None:
    return await session.scalar(select(PurgeRequest).order_by(PurgeRequest.id).limit(1))


async def source_kind_names(session: AsyncSession, ids: list[int]) -> dict[int, str]:
    rows = await session.execute(select(SourceKind.id, SourceKind.name).where(SourceKind.id.in_(ids)))
    return {row.id: row.name for row in rows}


async def known_kind_names(session: AsyncSession, names: list[str]) -> set[str]:
    """Those of `names` in the graph's kind catalogue (kinds the graph has held)."""
    rows = await session.scalars(select(_KIND.c.name).where(_KIND.c.name.in_(names)))
    return set(rows)


async def add_purge_request(session: AsyncSession, request: PurgeRequest) -> None:
    session.add(request)
    await session.flush()
