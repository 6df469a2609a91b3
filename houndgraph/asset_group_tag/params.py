"""The query parameters of the zone routes: each list's sortable and filterable columns, declared once."""

from __future__ import annotations

from starlette.requests import Request

from houndgraph.errors import BAD_FILTERS, BadRequest
from houndgraph.kit.filters import (
    ID_PREDICATES,
    ORDERED_PREDICATES,
    STRING_PREDICATES,
    FilterColumn,
    as_bool,
    as_datetime,
    as_int,
    parse_filters,
)
from houndgraph.kit.pagination import Page, parse_page
from houndgraph.kit.query import SORT_BY, ListQuery
from houndgraph.kit.sorting import SortKey, parse_sort

COUNTS, ENVIRONMENTS, SKIP, LIMIT = "counts", "environments", "skip", "limit"
BAD_COUNTS = "Invalid value specified for include counts"
_BOOLS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
          "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}

STRING = FilterColumn(STRING_PREDICATES)
STRICT = FilterColumn(ID_PREDICATES)
TIME = FilterColumn(ORDERED_PREDICATES, as_datetime)
BOOL = FilterColumn(ID_PREDICATES, as_bool)
INT = FilterColumn(ORDERED_PREDICATES, as_int)

TAG_FILTERS = {
    "type": FilterColumn(ID_PREDICATES, as_int), "name": STRING, "description": STRING,
    "created_at": TIME, "updated_at": TIME, "deleted_at": TIME,
    "created_by": STRICT, "updated_by": STRICT, "deleted_by": STRICT,
    "require_certify": BOOL, "analysis_enabled": BOOL,
}
SELECTOR_SORTABLE = ("id", "name", "created_at", "updated_at", "disabled_at", "auto_certify", "is_default")
SELECTOR_FILTERS = {
    "auto_certify": FilterColumn(ID_PREDICATES, as_int), "is_default": BOOL, "name": STRING, "description": STRING,
    "created_at": TIME, "updated_at": TIME, "disabled_at": TIME,
    "created_by": STRICT, "updated_by": STRICT, "disabled_by": STRICT, "type": FilterColumn(ID_PREDICATES, as_int),
}
MEMBER_SORTABLE = ("id", "objectid", "name")
MEMBER_FILTERS = {"name": STRING, "object_id": STRING, "primary_kind": STRICT}
CERTIFICATION_FILTERS = {
    "asset_group_tag_id": FilterColumn(ID_PREDICATES, as_int), "certified": FilterColumn(ID_PREDICATES, as_int),
    "certified_by": STRING, "created_at": TIME, "name": STRING, "object_id": STRING, "primary_kind": STRICT,
}
HISTORY_SORTABLE = ("id", "created_at", "actor", "email", "action", "target", "asset_group_tag_id")
HISTORY_FILTERS = {
    "actor": STRING, "email": STRING, "action": STRING, "target": STRING, "asset_group_tag_id": INT,
    "environment_id": STRING, "note": STRING, "created_at": TIME,
}
PAGED = frozenset({SKIP, LIMIT})


def _query(request: Request, sortable: tuple[str, ...], filters: dict[str, FilterColumn],
           default_sort: tuple[SortKey, ...] = (), also: frozenset[str] = PAGED) -> ListQuery:
    params = request.query_params.multi_items()
    sort = parse_sort([value for name, value in params if name == SORT_BY], sortable, default=default_sort)
    return ListQuery(sort, parse_filters(params, filters, ignore=also | {SORT_BY}))


def tag_filters(request: Request) -> list:  # type: ignore[type-arg]
    params = request.query_params.multi_items()
    return parse_filters(params, TAG_FILTERS, ignore=frozenset({COUNTS}))


def selector_query(request: Request) -> ListQuery:
    return _query(request, SELECTOR_SORTABLE, SELECTOR_FILTERS, also=PAGED | {COUNTS, ENVIRONMENTS})


def member_query(request: Request) -> ListQuery:
    return _query(request, MEMBER_SORTABLE, MEMBER_FILTERS, default_sort=(SortKey("id"),),
                  also=PAGED | {ENVIRONMENTS})


def certification_query(request: Request) -> ListQuery:
    return _query(request, (), CERTIFICATION_FILTERS, also=PAGED | {ENVIRONMENTS})


def history_query(request: Request) -> ListQuery:
    return _query(request, HISTORY_SORTABLE, HISTORY_FILTERS, default_sort=(SortKey("created_at", True),))


def counts_flag(request: Request) -> bool:
    raw = request.query_params.get(COUNTS)
    if raw is None or raw == "":
        return False
    if raw not in _BOOLS:
        raise BadRequest(BAD_COUNTS)
    return _BOOLS[raw]


def environments(request: Request) -> list[str]:
    return [value for value in request.query_params.getlist(ENVIRONMENTS) if value]


def page(request: Request, default_limit: int) -> Page:
    return parse_page(request.query_params.get(SKIP), request.query_params.get(LIMIT), default_limit=default_limit)


__all__ = ["BAD_FILTERS"]
