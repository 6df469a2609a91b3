"""What the legacy asset-group lists may be sorted and filtered by. Both are a handful of rows filtered and sorted
in memory: each column names the attribute of the view row it reads."""

from __future__ import annotations

from houndgraph.kit.filters import ID_PREDICATES, ORDERED_PREDICATES, FilterColumn, as_bool, as_int
from houndgraph.kit.query import PAGE_PARAMETERS, Column, list_columns

_EXACT = FilterColumn(ID_PREDICATES)
_FLAG = FilterColumn(ID_PREDICATES, as_bool)

GROUPS = list_columns({
    "name": Column("name", _EXACT),
    "tag": Column("tag", _EXACT),
    "member_count": Column("member_count", FilterColumn(ORDERED_PREDICATES, as_int)),
    "system_group": Column("system_group", _FLAG, sortable=False),
    "id": Column("id", FilterColumn(ORDERED_PREDICATES, as_int), sortable=False),
})

MEMBERS = list_columns({
    "object_id": Column("object_id", _EXACT),
    "primary_kind": Column("primary_kind", _EXACT),
    "environment_id": Column("environment_id", _EXACT),
    "environment_kind": Column("environment_kind", _EXACT),
    "name": Column("name", _EXACT),
    "custom_member": Column("custom_member", _FLAG),
}, also=PAGE_PARAMETERS)
