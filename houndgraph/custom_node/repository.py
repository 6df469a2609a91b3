"""SQL of custom node kinds."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.models import CustomNodeKind


async def list_all(session: AsyncSession) -> list[CustomNodeKind]:
    return list(await session.scalars(select(CustomNodeKind).order_by(CustomNodeKind.id)))


async def get(session: AsyncSession, kind_name: str) -> CustomNodeKind | None:
    return await session.scalar(select(CustomNodeKind).where(CustomNodeKind.kind_name == kind_name))


async def existing(session: AsyncSession, names: Sequence[str]) -> list[str]:
    return list(await session.scalars(select(CustomNodeKind.kind_name).where(CustomNodeKind.kind_name.in_(names))))


async def add(session: AsyncSession, rows: Sequence[CustomNodeKind]) -> None:
    session.add_all(rows)
    await session.flush()
    for row in rows:
        await session.refresh(row)


async def save(session: AsyncSession, row: CustomNodeKind) -> None:
    await session.flush()
    await session.refresh(row)


async def remove(session: AsyncSession, kind_name: str) -> bool:
    result = await session.execute(delete(CustomNodeKind).where(CustomNodeKind.kind_name == kind_name)
                                   .returning(CustomNodeKind.id))
    return result.first() is not None
