"""The audit log on the wire (`model.AuditLog`), what its list may be sorted and filtered by, and a query."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from houndgraph.kit.filters import (
    ID_PREDICATES,
    ORDERED_PREDICATES,
    STRING_PREDICATES,
    Filter,
    FilterColumn,
    as_datetime,
    as_int,
    as_uuid,
)
from houndgraph.kit.query import PAGE_PARAMETERS, ListColumns
from houndgraph.kit.sorting import SortKey
from houndgraph.models import AuditLog

# The reference reads `offset` where its SDK sends `skip`: both are accepted.
WINDOW_PARAMETERS = frozenset({"before", "after", "offset"})
DEFAULT_LIMIT = 1000
DEFAULT_WINDOW_DAYS = 365

AUDIT_LOGS = ListColumns(
    sortable=("id", "actor_id", "actor_name", "action", "request_id", "created_at", "status"),
    filters={
        "id": FilterColumn(ORDERED_PREDICATES, as_int),
        "actor_id": FilterColumn(ID_PREDICATES, as_uuid),
        "actor_name": FilterColumn(STRING_PREDICATES),
        "action": FilterColumn(STRING_PREDICATES),
        "request_id": FilterColumn(STRING_PREDICATES),
        "status": FilterColumn(STRING_PREDICATES),
        "commit_id": FilterColumn(ID_PREDICATES, as_uuid),
        "created_at": FilterColumn(ORDERED_PREDICATES, as_datetime),
    },
    default_sort=(SortKey("created_at", descending=True),),
    also=PAGE_PARAMETERS | WINDOW_PARAMETERS,
)


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
