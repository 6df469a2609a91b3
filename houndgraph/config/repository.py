from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.models import Parameter


async def stored_value(session: AsyncSession, key: str) -> dict[str, Any] | None:
    return await session.scalar(select(Parameter.value).where(Parameter.key == key))
