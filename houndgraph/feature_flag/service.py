from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.errors import ID_MALFORMED, BadRequest, Forbidden, NotFound
from houndgraph.feature_flag import repository
from houndgraph.feature_flag.catalogue import FeatureFlagKey
from houndgraph.models import FeatureFlag

INT32_MAX = 2**31 - 1


async def list_flags(session: AsyncSession) -> list[FeatureFlag]:
    return await repository.list_flags(session)


async def is_enabled(session: AsyncSession, key: FeatureFlagKey) -> bool:
    """Whether a flag is on; a flag missing from the table is off."""
    return bool(await repository.enabled(session, key))


def parse_flag_id(raw: str) -> int:
    # Flag ids are int32 in the reference; anything else cannot name a flag.
    if not raw.isascii() or not raw.isdigit() or int(raw) > INT32_MAX:
        raise BadRequest(ID_MALFORMED)
    return int(raw)


async def toggle(session: AsyncSession, flag_id: int) -> bool:
    """Flip a user-updatable flag; returns its new state."""
    flag = await repository.flag_by_id(session, flag_id)
    if flag is None:
        raise NotFound()
    if not flag.user_updatable:
        raise Forbidden(f"Feature flag {flag.key}({flag.id}) is not user updatable.")
    await repository.set_enabled(session, flag, not flag.enabled)
    return flag.enabled
