"""What the user, role and permission lists may be sorted and filtered by (the reference's columns), and the
SQL each column reads."""

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
from houndgraph.kit.query import Column, list_columns
from houndgraph.kit.sorting import SortKey
from houndgraph.models import Permission, Role, User

_TEXT = FilterColumn(STRING_PREDICATES)
_TIME = FilterColumn(ORDERED_PREDICATES, as_datetime)
_NAMES = {
    "first_name": Column(User.first_name, _TEXT),
    "last_name": Column(User.last_name, _TEXT),
    "email_address": Column(User.email_address, _TEXT),
}

MINIMAL_USERS = list_columns(
    {"id": Column(User.id, FilterColumn(ID_PREDICATES, as_uuid)), **_NAMES},
    default_sort=(SortKey("id"),),
    # The reference words this one differently from the other lists (behaviour.md §5).
    not_sortable="the specified column cannot be sorted",
)

# The minimal list's columns too: both lists are read by one repository function.
USERS = list_columns(
    {
        **_NAMES,
        "id": Column(User.id, FilterColumn(ID_PREDICATES, as_uuid), sortable=False),
        "principal_name": Column(User.principal_name, _TEXT),
        "last_login": Column(User.last_login, _TIME),
        "created_at": Column(User.created_at, _TIME),
        "updated_at": Column(User.updated_at, _TIME),
    },
    default_sort=(SortKey("principal_name"),),
)

ROLES = list_columns(
    {
        "id": Column(Role.id, FilterColumn(ORDERED_PREDICATES, as_int)),
        "name": Column(Role.name, _TEXT),
        "description": Column(Role.description),
        "created_at": Column(Role.created_at, _TIME),
        "updated_at": Column(Role.updated_at, _TIME),
    },
    default_sort=(SortKey("id"),),
)

PERMISSIONS = list_columns(
    {
        "id": Column(Permission.id, FilterColumn(ORDERED_PREDICATES, as_int)),
        "authority": Column(Permission.authority, _TEXT),
        "name": Column(Permission.name, _TEXT),
        "created_at": Column(Permission.created_at, _TIME),
        "updated_at": Column(Permission.updated_at, _TIME),
    },
    default_sort=(SortKey("id"),),
)
