"""Query parameters of the legacy asset group lists, declared once."""

from __future__ import annotations

from starlette.requests import Request

from houndgraph.kit.filters import ID_PREDICATES, ORDERED_PREDICATES, FilterColumn, as_bool, as_int, parse_filters
from houndgraph.kit.pagination import Page, parse_page
from houndgraph.kit.query import SORT_BY, ListQuery
from houndgraph.kit.sorting import parse_sort

GROUP_SORTABLE = ("name", "tag", "member_count")
GROUP_FILTERS = {
    "name": FilterColumn(ID_PREDICATES), "tag": FilterColumn(ID_PREDICATES),
    "system_group": FilterColumn(ID_PREDICATES, as_bool), "member_count": FilterColumn(ORDERED_PREDICATES, as_int),
    "id": FilterColumn(ORDERED_PREDICATES, as_int),
}
MEMBER_SORTABLE = ("object_id", "primary_kind", "environment_id", "environment_kind", "name", "custom_member")
MEMBER_FILTERS = {
    "object_id": FilterColumn(ID_PREDICATES), "primary_kind": FilterColumn(ID_PREDICATES),
    "environment_id": FilterColumn(ID_PREDICATES), "environment_kind": FilterColumn(ID_PREDICATES),
    "name": FilterColumn(ID_PREDICATES), "custom_member": FilterColumn(ID_PREDICATES, as_bool),
}


def _query(request: Request, sortable: tuple[str, ...], filters: dict[str, FilterColumn],
           also: frozenset[str] = frozenset()) -> ListQuery:
    params = request.query_params.multi_items()
    sort = parse_sort([value for name, value in params if name == SORT_BY], sortable)
    return ListQuery(sort, parse_filters(params, filters, ignore=also | {SORT_BY}))


def group_query(request: Request) -> ListQuery:
    return _query(request, GROUP_SORTABLE, GROUP_FILTERS)


def member_query(request: Request) -> ListQuery:
    return _query(request, MEMBER_SORTABLE, MEMBER_FILTERS, frozenset({"skip", "limit"}))


def page(request: Request, default_limit: int) -> Page:
    return parse_page(request.query_params.get("skip"), request.query_params.get("limit"),
                      default_limit=default_limit)
