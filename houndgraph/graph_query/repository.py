"""The source kinds a clear-database request may name."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.models.source_kind import SourceKind


async def active_source_kinds(session: AsyncSession) -> Sequence[SourceKind]:
    return (await session.scalars(select(SourceKind).where(SourceKind.active).order_by(SourceKind.id))).all()
