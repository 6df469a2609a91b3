"""SQL of the audit log."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from houndgraph.models import AuditLog


def _values(actor_id: uuid.UUID | None, actor_name: str, action: str, status: str, commit_id: uuid.UUID,
            request_id: str | None, fields: dict[str, Any]) -> dict[str, Any]:
    return {"actor_id": actor_id, "actor_name": actor_name, "action": action, "status": status,
            "commit_id": commit_id, "request_id": request_id, "fields": fields}


async def add(session: AsyncSession, **entry: Any) -> None:
    """In the caller's transaction: kept only if that transaction commits."""
    await session.execute(insert(AuditLog).values(_values(**entry)))


async def add_now(session: AsyncSession, **entry: Any) -> None:
    """In a transaction of its own, committed at once: kept even when the caller's rolls back."""
    engine = session.bind
    assert isinstance(engine, AsyncEngine), "request sessions are bound to the async engine"
    async with engine.begin() as connection:
        await connection.execute(insert(AuditLog).values(_values(**entry)))
