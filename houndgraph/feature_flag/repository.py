"""SQL of feature flags."""

from __future__ import annotations

import psycopg
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.models import FeatureFlag


async def list_flags(session: AsyncSession) -> list[FeatureFlag]:
    return list(await session.scalars(select(FeatureFlag).order_by(FeatureFlag.id)))


async def flag_by_id(session: AsyncSession, flag_id: int) -> FeatureFlag | None:
    # Row lock: two concurrent toggles must flip twice, not both read the same state.
    return await session.scalar(select(FeatureFlag).where(FeatureFlag.id == flag_id).with_for_update())


async def enabled(session: AsyncSession, key: str) -> bool | None:
    return await session.scalar(select(FeatureFlag.enabled).where(FeatureFlag.key == key))


async def set_enabled(session: AsyncSession, flag: FeatureFlag, value: bool) -> None:
    flag.enabled = value
    await session.flush()


def enabled_on(conn: psycopg.Connection, key: str) -> bool | None:
    """For the datapipe's analysis, on its psycopg connection."""
    row = conn.execute("SELECT enabled FROM feature_flags WHERE key = %s", (key,)).fetchone()
    return None if row is None else bool(row[0])
