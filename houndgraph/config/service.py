"""Reading configuration values; the stored value wins over the catalogue default."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import isodate
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.config import repository
from houndgraph.config.catalogue import DEFAULTS, ParameterKey


async def get_value(session: AsyncSession, key: ParameterKey) -> dict[str, Any]:
    stored = await repository.stored_value(session, key)
    return stored if stored is not None else dict(DEFAULTS[key])


async def session_ttl(session: AsyncSession) -> timedelta:
    return timedelta(hours=int((await get_value(session, ParameterKey.SESSION_TTL_HOURS))["hours"]))


async def api_tokens_enabled(session: AsyncSession) -> bool:
    return bool((await get_value(session, ParameterKey.API_TOKENS))["enabled"])


async def password_expiration_window(session: AsyncSession) -> timedelta:
    value = await get_value(session, ParameterKey.PASSWORD_EXPIRATION_WINDOW)
    duration = isodate.parse_duration(value["duration"])
    return duration if isinstance(duration, timedelta) else duration.totimedelta(start=isodate.datetime.now())
