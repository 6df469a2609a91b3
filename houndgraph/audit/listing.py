"""What `GET /api/v2/audit` may be sorted and filtered by, and the SQL each column reads."""

from __future__ import annotations

from houndgraph.kit.filters import (
    ID_PREDICATES,
    ORDERED_PREDICATES,
    STRING_PREDICATES,
    FilterColumn,
    as_datetime,
    as_int,
    as_uuid,
)
from houndgraph.kit.query import PAGE_PARAMETERS, Column, list_columns
from houndgraph.kit.sorting import SortKey
from houndgraph.models import AuditLog

# The reference reads `offset` where its SDK sends `skip`: both are accepted.
WINDOW_PARAMETERS = frozenset({"before", "after", "offset"})

AUDIT_LOGS = list_columns(
    {
        "id": Column(AuditLog.id, FilterColumn(ORDERED_PREDICATES, as_int)),
        "actor_id": Column(AuditLog.actor_id, FilterColumn(ID_PREDICATES, as_uuid)),
        "actor_name": Column(AuditLog.actor_name, FilterColumn(STRING_PREDICATES)),
        "action": Column(AuditLog.action, FilterColumn(STRING_PREDICATES)),
        "request_id": Column(AuditLog.request_id, FilterColumn(STRING_PREDICATES)),
        "created_at": Column(AuditLog.created_at, FilterColumn(ORDERED_PREDICATES, as_datetime)),
        "status": Column(AuditLog.status, FilterColumn(STRING_PREDICATES)),
        "commit_id": Column(AuditLog.commit_id, FilterColumn(ID_PREDICATES, as_uuid), sortable=False),
    },
    default_sort=(SortKey("created_at", descending=True),),
    also=PAGE_PARAMETERS | WINDOW_PARAMETERS,
)
