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
from houndgraph.kit.sorting import SortKey

# The reference words this one differently from the other lists (behaviour.md §5).
MINIMAL_NOT_SORTABLE = "the specified column cannot be sorted"

_TIMES = {
    "created_at": FilterColumn(ORDERED_PREDICATES, as_datetime),
    "updated_at": FilterColumn(ORDERED_PREDICATES, as_datetime),
}

MINIMAL_USER_SORTABLE = ("id", "first_name", "last_name", "email_address")
MINIMAL_USER_DEFAULT_SORT = (SortKey("id"),)
MINIMAL_USER_FILTERS = {
    "first_name": FilterColumn(STRING_PREDICATES),
    "last_name": FilterColumn(STRING_PREDICATES),
    "email_address": FilterColumn(STRING_PREDICATES),
    "id": FilterColumn(ID_PREDICATES, as_uuid),
}

USER_SORTABLE = ("first_name", "last_name", "email_address", "principal_name", "last_login", "created_at",
                 "updated_at")
USER_DEFAULT_SORT = (SortKey("principal_name"),)
USER_FILTERS = {
    **MINIMAL_USER_FILTERS,
    "principal_name": FilterColumn(STRING_PREDICATES),
    "last_login": FilterColumn(ORDERED_PREDICATES, as_datetime),
    **_TIMES,
}

ROLE_SORTABLE = ("id", "name", "description", "created_at", "updated_at")
ROLE_DEFAULT_SORT = (SortKey("id"),)
ROLE_FILTERS = {
    "id": FilterColumn(ORDERED_PREDICATES, as_int),
    "name": FilterColumn(STRING_PREDICATES),
    **_TIMES,
}

PERMISSION_SORTABLE = ("id", "authority", "name", "created_at", "updated_at")
PERMISSION_DEFAULT_SORT = (SortKey("id"),)
PERMISSION_FILTERS = {
    "id": FilterColumn(ORDERED_PREDICATES, as_int),
    "authority": FilterColumn(STRING_PREDICATES),
    "name": FilterColumn(STRING_PREDICATES),
    **_TIMES,
}
