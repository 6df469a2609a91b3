from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query

from houndgraph.audit import service as audit_service
from houndgraph.audit.listing import AUDIT_LOGS
from houndgraph.audit.schemas import DEFAULT_WINDOW_DAYS, AuditLogList, AuditLogView
from houndgraph.deps import SessionDep
from houndgraph.kit.envelopes import PageEnvelope
from houndgraph.kit.params import LimitText, SkipText, list_query
from houndgraph.kit.query import ListQuery

AuditListQuery = Annotated[ListQuery, Depends(list_query(AUDIT_LOGS))]
TimeText = Annotated[str | None, Query(description="RFC 3339 time; `before` defaults to now, `after` to "
                                                   f"{DEFAULT_WINDOW_DAYS} days before `before`.")]


async def list_audit_logs(listed: AuditListQuery, session: SessionDep, before: TimeText = None,
                          after: TimeText = None, skip: SkipText = None, offset: SkipText = None,
                          limit: LimitText = None) -> PageEnvelope[AuditLogList]:
    query = audit_service.log_query(listed, before, after, skip, offset, limit)
    rows, count = await audit_service.list_logs(session, query)
    return PageEnvelope(count=count, skip=query.skip, limit=query.limit,
                        data=AuditLogList(logs=[AuditLogView.of(row) for row in rows]))
