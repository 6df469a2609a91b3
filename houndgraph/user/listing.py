"""What the user, role and permission lists may be sorted and filtered by (the reference's columns)."""

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
from houndgraph.kit.query import ListColumns
from houndgraph.kit.sorting import SortKey

_TIMES = {
    "created_at": FilterColumn(ORDERED_PREDICATES, as_datetime),
    "updated_at": FilterColumn(ORDERED_PREDICATES, as_datetime),
}
_MINIMAL_USER_FILTERS = {
    "first_name": FilterColumn(STRING_PREDICATES),
    "last_name": FilterColumn(STRING_PREDICATES),
    "email_address": FilterColumn(STRING_PREDICATES),
    "id": FilterColumn(ID_PREDICATES, as_uuid),
}

MINIMAL_USERS = ListColumns(
    sortable=("id", "first_name", "last_name", "email_address"),
    filters=_MINIMAL_USER_FILTERS,
    default_sort=(SortKey("id"),),
    # The reference words this one differently from the other lists (behaviour.md §5).
    not_sortable="the specified column cannot be sorted",
)

USERS = ListColumns(
    sortable=("first_name", "last_name", "email_address", "principal_name", "last_login", "created_at",
              "updated_at"),
    filters={
        **_MINIMAL_USER_FILTERS,
        "principal_name": FilterColumn(STRING_PREDICATES),
        "last_login": FilterColumn(ORDERED_PREDICATES, as_datetime),
        **_TIMES,
    },
    default_sort=(SortKey("principal_name"),),
)

ROLES = ListColumns(
    sortable=("id", "name", "description", "created_at", "updated_at"),
    filters={"id": FilterColumn(ORDERED_PREDICATES, as_int), "name": FilterColumn(STRING_PREDICATES), **_TIMES},
    default_sort=(SortKey("id"),),
)

PERMISSIONS = ListColumns(
    sortable=("id", "authority", "name", "created_at", "updated_at"),
    filters={
        "id": FilterColumn(ORDERED_PREDICATES, as_int),
        "authority": FilterColumn(STRING_PREDICATES),
        "name": FilterColumn(STRING_PREDICATES),
        **_TIMES,
    },
    default_sort=(SortKey("id"),),
)
