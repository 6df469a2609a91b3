"""The audit log, for any domain: an action's intent before it runs, and its outcome after.

The intent and a failure are written in transactions of their own, so that they survive the
rollback of the request that failed; a success is written in the request's transaction, so that it
is recorded exactly when the change it reports is committed.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.audit import repository
from houndgraph.auth.context import AuthContext


class AuditAction(StrEnum):
    MUTATE_GRAPH = "MutateGraph"
    LOGIN_ATTEMPT = "LoginAttempt"
    UNAUTHORIZED_ACCESS_ATTEMPT = "UnauthorizedAccessAttempt"


class AuditStatus(StrEnum):
    INTENT = "intent"
    SUCCESS = "success"
    FAILURE = "failure"


@dataclass(frozen=True)
class AuditedAction:
    """One action being audited: its entries share the commit id."""

    auth: AuthContext
    action: AuditAction
    fields: dict[str, Any]
    request_id: str | None = None
    commit_id: uuid.UUID = field(default_factory=uuid.uuid4)

    def entry(self, status: AuditStatus, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        return {"actor_id": self.auth.user_id, "actor_name": self.auth.principal_name, "action": self.action.value,
                "status": status.value, "commit_id": self.commit_id, "request_id": self.request_id,
                "fields": {**self.fields, **(extra or {})}}


async def begin(session: AsyncSession, action: AuditedAction) -> None:
    await repository.add_now(session, **action.entry(AuditStatus.INTENT))


async def succeeded(session: AsyncSession, action: AuditedAction) -> None:
    await repository.add(session, **action.entry(AuditStatus.SUCCESS))


async def failed(session: AsyncSession, action: AuditedAction, error: str) -> None:
    await repository.add_now(session, **action.entry(AuditStatus.FAILURE, {"error": error}))


async def unauthorized(session: AsyncSession, auth: AuthContext, attempted: AuditAction, fields: dict[str, Any],
                       request_id: str | None = None) -> None:
    """An attempt refused for lack of permission (written at once: the refusal rolls the request back)."""
    action = AuditedAction(auth, AuditAction.UNAUTHORIZED_ACCESS_ATTEMPT, {"attempted": attempted.value, **fields},
                           request_id)
    await repository.add_now(session, **action.entry(AuditStatus.FAILURE))


async def login_failed(session: AsyncSession, username: str, fields: dict[str, Any],
                       request_id: str | None = None) -> None:
    """A refused login (written at once: the 401 rolls the request back). No actor: nobody is proven yet."""
    await repository.add_now(session, actor_id=None, actor_name=username, action=AuditAction.LOGIN_ATTEMPT.value,
                             status=AuditStatus.FAILURE.value, commit_id=uuid.uuid4(), request_id=request_id,
                             fields={"username": username, **fields})
