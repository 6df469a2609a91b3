"""The audit trail the route table attaches to security-relevant routes: one entry when the handler
succeeds (in the request's transaction, so it is kept exactly when the change is) and one when it fails
(in a transaction of its own, which the failed request's rollback does not take back)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import Request

from houndgraph.audit import service as audit_service
from houndgraph.audit.service import AuditAction, AuditedAction
from houndgraph.deps import SessionDep
from houndgraph.errors import ServiceError


def audit_trail(action: AuditAction) -> Callable[..., AsyncIterator[None]]:
    async def trail(request: Request, session: SessionDep) -> AsyncIterator[None]:
        fields: dict[str, Any] = {"method": request.method, "path": request.url.path, **request.path_params}
        entry = AuditedAction(getattr(request.state, "auth", None), action, fields,
                              getattr(request.state, "request_id", None))
        try:
            yield
        except ServiceError as error:
            await audit_service.failed(session, entry, error.message)
            raise
        await audit_service.succeeded(session, entry)

    trail.__name__ = f"audit_{action.name.lower()}"
    return trail
