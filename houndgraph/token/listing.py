"""What `GET /api/v2/tokens` may be sorted and filtered by, and the SQL each column reads."""

from __future__ import annotations

from houndgraph.kit.filters import (
    ID_PREDICATES,
    ORDERED_PREDICATES,
    STRING_PREDICATES,
    FilterColumn,
    as_datetime,
    as_uuid,
)
from houndgraph.kit.query import Column, list_columns
from houndgraph.kit.sorting import SortKey
from houndgraph.models import AuthToken

# `key` is deliberately not filterable: a key never leaves the service after creation, so it should not be
# guessable through a filter either.
TOKENS = list_columns(
    {
        "id": Column(AuthToken.id, FilterColumn(ID_PREDICATES, as_uuid)),
        "user_id": Column(AuthToken.user_id, FilterColumn(ID_PREDICATES, as_uuid)),
        "name": Column(AuthToken.name, FilterColumn(STRING_PREDICATES)),
        "hmac_method": Column(AuthToken.hmac_method, FilterColumn(STRING_PREDICATES), sortable=False),
        "last_access": Column(AuthToken.last_access, FilterColumn(ORDERED_PREDICATES, as_datetime)),
        "created_at": Column(AuthToken.created_at, FilterColumn(ORDERED_PREDICATES, as_datetime)),
        "updated_at": Column(AuthToken.updated_at, FilterColumn(ORDERED_PREDICATES, as_datetime)),
    },
    default_sort=(SortKey("created_at"), SortKey("id")),
)
