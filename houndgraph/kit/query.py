"""What a list route family accepts (`ListColumns`, declared once per family), what it was sent (`ListQuery`),
and the reference's boolean query values.

A family declared with `list_columns` names each column once, with the SQL expression it reads: the
parameter parsing and the repository read the same declaration, so a column that parses but has no SQL
cannot exist.

Free of FastAPI, so services and schemas may hold declarations; `kit.params` turns them into dependencies.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from houndgraph.errors import BAD_FILTERS, NOT_SORTABLE, BadRequest
from houndgraph.kit.filters import Filter, FilterColumn
from houndgraph.kit.sorting import SortKey

_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
SORT_BY = "sort_by"
PAGE_PARAMETERS = frozenset({"skip", "limit"})
# strconv.ParseBool's spellings, which the reference accepts for its boolean parameters.
_BOOLS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
          "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}


@dataclass(frozen=True, slots=True)
class ListColumns:
    """Sortable columns and filterable columns (with their predicates) of one list route family.

    `also` names the parameters other dependencies of the route read (paging, scope, ...); any other
    parameter is parsed as a filter, so an unknown one answers 400 as in the reference.
    """

    sortable: tuple[str, ...] = ()
    filters: Mapping[str, FilterColumn] = field(default_factory=dict)
    default_sort: tuple[SortKey, ...] = ()
    not_sortable: str = NOT_SORTABLE
    also: frozenset[str] = frozenset()
    # API name -> SQL expression, for `kit.filters.where` and `kit.sorting.order_by` (see `list_columns`).
    expressions: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a list: the SQL expression it reads, the filter it takes (None: not filterable) and
    whether `sort_by` may name it."""

    expression: Any
    filter: FilterColumn | None = None
    sortable: bool = True


def list_columns(columns: Mapping[str, Column], *, default_sort: tuple[SortKey, ...] = (),
                 not_sortable: str = NOT_SORTABLE, also: frozenset[str] = frozenset()) -> ListColumns:
    """A list route family from its columns, in the order the API document lists them."""
    return ListColumns(
        sortable=tuple(name for name, column in columns.items() if column.sortable),
        filters={name: column.filter for name, column in columns.items() if column.filter is not None},
        default_sort=default_sort, not_sortable=not_sortable, also=also,
        expressions={name: column.expression for name, column in columns.items()},
    )


@dataclass(frozen=True, slots=True)
class ListQuery:
    sort: list[SortKey]
    filters: list[Filter]


def parse_bool(raw: str | None, default: bool) -> bool:
    """strconv.ParseBool: `default` when absent or empty, else one of its spellings or 400 (bad filters)."""
    if raw is None or raw == "":
        return default
    if raw not in _BOOLS:
        raise BadRequest(BAD_FILTERS)
    return _BOOLS[raw]


def parse_time(raw: str | None, default: datetime) -> datetime:
    """An RFC 3339 time parameter (the bounds of time-windowed lists); `default` when absent or empty."""
    if raw is None or raw == "":
        return default
    if not _RFC3339.match(raw):
        raise BadRequest(f"invalid RFC-3339 datetime format: [{raw}]")
    try:
        return datetime.fromisoformat(raw.replace("z", "Z"))
    except ValueError:
        raise BadRequest(f"invalid RFC-3339 datetime format: [{raw}]") from None
