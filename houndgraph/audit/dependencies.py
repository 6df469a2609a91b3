"""The audit trail the route table attaches to security-relevant routes: one entry when the handler
succeeds (in the request's transaction, so it is kept exactly when the change is) and one when it fails
(in a transaction of its own, which the failed request's rollback does not take back). A handler adds what
the path does not say, such as the id of what it created, through `AuditFields`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Annotated, Any

from fastapi import Depends, Request

from houndgraph.audit import service as audit_service
from houndgraph.audit.service import AuditAction, AuditedAction
from houndgraph.deps import SessionDep
from houndgraph.errors import ServiceError


def audit_fields(request: Request) -> dict[str, Any]:
    """The request's own fields for its audit entry (unused on routes the table does not audit)."""
    fields: dict[str, Any] | None = getattr(request.state, "audit_fields", None)
    if fields is None:
        fields = request.state.audit_fields = {}
    return fields


AuditFields = Annotated[dict[str, Any], Depends(audit_fields)]


def audit_trail(action: AuditAction) -> Callable[..., AsyncIterator[None]]:
    async def trail(request: Request, session: SessionDep) -> AsyncIterator[None]:
        fields: dict[str, Any] = {"method": request.method, "path": request.url.path, **request.path_params}
        entry = AuditedAction(getattr(request.state, "auth", None), action, fields,
                              getattr(request.state, "request_id", None))
        try:
            yield
        except ServiceError as error:
            await audit_service.failed(session, _with_handler_fields(entry, request), error.message)
            raise
        await audit_service.succeeded(session, _with_handler_fields(entry, request))

    trail.__name__ = f"audit_{action.name.lower()}"
    return trail


def _with_handler_fields(entry: AuditedAction, request: Request) -> AuditedAction:
    return replace(entry, fields={**entry.fields, **getattr(request.state, "audit_fields", {})})
