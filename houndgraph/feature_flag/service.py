from __future__ import annotations

import psycopg
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.errors import Forbidden
from houndgraph.feature_flag import repository
from houndgraph.feature_flag.flag_keys import FeatureFlagKey
from houndgraph.kit.repository import get_or_404
from houndgraph.models import FeatureFlag


async def list_flags(session: AsyncSession) -> list[FeatureFlag]:
    return await repository.list_flags(session)


async def is_enabled(session: AsyncSession, key: FeatureFlagKey) -> bool:
    """Whether a flag is on; a flag missing from the table is off."""
    return bool(await repository.enabled(session, key))


async def toggle(session: AsyncSession, flag_id: int) -> bool:
    """Flip a user-updatable flag; returns its new state."""
    flag = get_or_404(await repository.flag_by_id(session, flag_id))
    if not flag.user_updatable:
        raise Forbidden(f"Feature flag {flag.key}({flag.id}) is not user updatable.")
    await repository.set_enabled(session, flag, not flag.enabled)
    return flag.enabled


def enabled_on(conn: psycopg.Connection, key: FeatureFlagKey) -> bool:
    """`is_enabled` for the datapipe's analysis, on its psycopg connection."""
    return bool(repository.enabled_on(conn, key.value))
