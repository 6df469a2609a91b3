"""SQL of the audit log."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.audit.listing import AUDIT_LOGS
from houndgraph.audit.schemas import AuditLogQuery
from houndgraph.kit.filters import where
from houndgraph.kit.sorting import order_by
from houndgraph.models import AuditLog
from houndgraph.record_writer import write_apart


def _values(actor_id: uuid.UUID | None, actor_name: str, action: str, status: str, commit_id: uuid.UUID,
            request_id: str | None, fields: dict[str, Any]) -> dict[str, Any]:
    return {"actor_id": actor_id, "actor_name": actor_name, "action": action, "status": status,
            "commit_id": commit_id, "request_id": request_id, "fields": fields}


async def add(session: AsyncSession, **entry: Any) -> None:
    """In the caller's transaction: kept only if that transaction commits."""
    await session.execute(insert(AuditLog).values(_values(**entry)))


async def add_now(session: AsyncSession, **entry: Any) -> None:
    """Committed apart from the caller's transaction, before this returns: kept even when the caller's rolls back."""
    await write_apart(session, insert(AuditLog).values(_values(**entry)))


async def list_logs(session: AsyncSession, query: AuditLogQuery) -> tuple[Sequence[AuditLog], int]:
    """One page of the entries created in (after, before], and how many there are in all."""
    statement = select(AuditLog).where(AuditLog.created_at > query.after, AuditLog.created_at <= query.before)
    condition = where(query.filters, AUDIT_LOGS.expressions)
    if condition is not None:
        statement = statement.where(condition)
    count = await session.scalar(select(func.count()).select_from(statement.subquery())) or 0
    page = statement.order_by(*order_by(query.sort, AUDIT_LOGS.expressions), AuditLog.id.desc()).offset(query.skip)
    rows = (await session.scalars(page.limit(query.limit))).all()
    return rows, count
