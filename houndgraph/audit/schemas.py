"""The audit log on the wire (`model.AuditLog`) and a query of its list (`listing` says what it may be sorted and
filtered by)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from houndgraph.kit.filters import Filter
from houndgraph.kit.sorting import SortKey
from houndgraph.models import AuditLog

DEFAULT_LIMIT = 1000
DEFAULT_WINDOW_DAYS = 365


@dataclass(frozen=True, slots=True)
class AuditLogQuery:
    after: datetime
    before: datetime
    sort: list[SortKey]
    filters: list[Filter]
    skip: int
    limit: int


class AuditLogView(BaseModel):
    id: int
    created_at: datetime
    actor_id: str
    actor_name: str
    actor_email: str
    action: str
    fields: dict[str, Any]
    request_id: str
    source_ip_address: str
    status: str
    commit_id: uuid.UUID

    @classmethod
    def of(cls, row: AuditLog) -> AuditLogView:
        return cls(id=row.id, created_at=row.created_at, actor_id=str(row.actor_id or ""), actor_name=row.actor_name,
                   actor_email="", action=row.action, fields=row.fields, request_id=row.request_id or "",
                   source_ip_address="", status=row.status, commit_id=row.commit_id)


class AuditLogList(BaseModel):
    logs: list[AuditLogView]
