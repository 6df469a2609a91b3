"""`sort_by` and filters read together from a list route's query string."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from starlette.requests import Request

from houndgraph.errors import NOT_SORTABLE
from houndgraph.kit.filters import Filter, FilterColumn, parse_filters
from houndgraph.kit.sorting import SortKey, parse_sort

SORT_BY = "sort_by"


@dataclass(frozen=True, slots=True)
class ListQuery:
    sort: list[SortKey]
    filters: list[Filter]


def parse_list_query(request: Request, *, sortable: Iterable[str], default_sort: Sequence[SortKey],
                     filters: Mapping[str, FilterColumn], not_sortable: str = NOT_SORTABLE) -> ListQuery:
    """Every parameter other than `sort_by` is read as a filter, so an unknown one is a 400, as in the reference."""
    params = request.query_params.multi_items()
    sort = parse_sort([value for name, value in params if name == SORT_BY], sortable, default=default_sort,
                      not_sortable=not_sortable)
    return ListQuery(sort, parse_filters(params, filters, ignore=frozenset({SORT_BY})))
