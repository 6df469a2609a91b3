"""Query parameters as typed FastAPI dependencies: paging, sorting with filters, booleans, required values.

Each dependency keeps the reference's messages (BadRequest, not FastAPI's validation error) and declares
what it reads, so `/api/openapi.json` lists every parameter a client may send. A list route family
declares its columns once in a `ListColumns`; `list_query` turns it into a dependency whose signature
names each sortable and filterable column.

Dependencies are built by factories (one per route family), so annotations are evaluated at definition time
here: no `from __future__ import annotations`, FastAPI reads the closures' real types.
"""

import inspect
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import Query, Request

from houndgraph.errors import BadRequest
from houndgraph.kit.filters import FilterColumn, parse_filters
from houndgraph.kit.pagination import Page, parse_page
from houndgraph.kit.query import SORT_BY, ListColumns, ListQuery, parse_bool
from houndgraph.kit.sorting import parse_sort


def _sort_description(columns: ListColumns) -> str:
    return f"Sortable columns are {', '.join(columns.sortable)}; prefix with - for descending."


def _filter_description(column: FilterColumn) -> str:
    predicates = ", ".join(sorted(predicate.value for predicate in column.predicates))
    return f"Filter as `predicate:value`; predicates: {predicates}."


def list_query(columns: ListColumns) -> Callable[..., Awaitable[ListQuery]]:
    """A dependency parsing `sort_by` then the filters of `columns`; every column is a declared parameter."""

    async def dependency(request: Request, **_declared: Any) -> ListQuery:
        params = request.query_params.multi_items()
        sort = parse_sort([value for name, value in params if name == SORT_BY], columns.sortable,
                          default=columns.default_sort, not_sortable=columns.not_sortable)
        return ListQuery(sort, parse_filters(params, columns.filters, ignore=columns.also | {SORT_BY}))

    declared = [inspect.Parameter("request", inspect.Parameter.KEYWORD_ONLY, annotation=Request)]
    if columns.sortable:
        declared.append(_list_parameter("sort_by", SORT_BY, _sort_description(columns)))
    declared.extend(_list_parameter(f"filter_{index}", name, _filter_description(column))
                    for index, (name, column) in enumerate(columns.filters.items()))
    dependency.__signature__ = inspect.Signature(declared, return_annotation=ListQuery)  # type: ignore[attr-defined]
    return dependency


def _list_parameter(name: str, alias: str, description: str) -> inspect.Parameter:
    # Declared for OpenAPI only: the values are read from the query string in order, with unknown names.
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=list[str] | None,
                             default=Query(None, alias=alias, description=description))


# Read as text and parsed by `kit.pagination`, which answers the reference's messages (and range).
SkipText = Annotated[str | None, Query(description="Number of items to skip (integer 0..2^63-1).")]
LimitText = Annotated[str | None, Query(description="Number of items to return (integer 0..2^63-1).")]


def page_query(default_limit: int) -> Callable[..., Awaitable[Page]]:
    """A dependency for `skip` (default 0) and `limit` (default `default_limit`)."""

    async def dependency(skip: SkipText = None, limit: LimitText = None) -> Page:
        return parse_page(skip, limit, default_limit=default_limit)

    return dependency


def flag_query(name: str, default: bool, *, description: str = "") -> Callable[..., Awaitable[bool]]:
    """A dependency for one boolean parameter, with strconv.ParseBool's spellings."""

    async def dependency(raw: Annotated[str | None, Query(alias=name, description=description)] = None) -> bool:
        return parse_bool(raw, default)

    return dependency


def required_query(name: str, message: str) -> Callable[..., Awaitable[str]]:
    """A dependency for a parameter that must be present and not empty; else 400 `message`."""

    async def dependency(raw: Annotated[str | None, Query(alias=name)] = None) -> str:
        if not raw:
            raise BadRequest(message)
        return raw

    return dependency
