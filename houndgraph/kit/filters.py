"""Query-string filters `column=predicate:value` with per-route allow-lists and the reference messages."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import ColumnElement, and_, cast, not_
from sqlalchemy import String as SAString

from houndgraph.errors import BAD_FILTERS, NOT_FILTERABLE, PREDICATE_NOT_SUPPORTED, BadRequest


class Predicate(StrEnum):
    EQ = "eq"
    NEQ = "neq"
    APPROX = "~eq"
    GT = "gt"
    GTE = "gte"
    LT = "lt"
    LTE = "lte"


STRING_PREDICATES = frozenset({Predicate.EQ, Predicate.NEQ, Predicate.APPROX})
ID_PREDICATES = frozenset({Predicate.EQ, Predicate.NEQ})
ORDERED_PREDICATES = frozenset(
    {Predicate.EQ, Predicate.NEQ, Predicate.GT, Predicate.GTE, Predicate.LT, Predicate.LTE}
)


@dataclass(frozen=True, slots=True)
class Filter:
    column: str
    predicate: Predicate
    value: Any


@dataclass(frozen=True, slots=True)
class FilterColumn:
    """What a route allows on one column: its predicates and how to convert the raw value."""

    predicates: frozenset[Predicate]
    convert: Callable[[str], Any] = str


def as_int(raw: str) -> int:
    """A signed 64-bit integer, as Go parses it: a larger value is a bad filter, not a database error."""
    value = int(raw)
    if not -(2**63) <= value < 2**63:
        raise ValueError(raw)
    return value


def as_uuid(raw: str) -> uuid.UUID:
    return uuid.UUID(raw)


def as_bool(raw: str) -> bool:
    lowered = raw.lower()
    if lowered not in ("true", "false"):
        raise ValueError(raw)
    return lowered == "true"


def as_datetime(raw: str) -> datetime:
    return datetime.fromisoformat(raw.replace("Z", "+00:00"))


def parse_filters(params: list[tuple[str, str]], allowed: Mapping[str, FilterColumn],
                  *, ignore: frozenset[str] = frozenset()) -> list[Filter]:
    """Parse every query parameter not in `ignore` (sort_by, skip, limit, ...) as a filter."""
    filters: list[Filter] = []
    for name, raw in params:
        if name in ignore:
            continue
        predicate_text, sep, value_text = raw.partition(":")
        if not sep:
            raise BadRequest(BAD_FILTERS)
        try:
            predicate = Predicate(predicate_text)
        except ValueError:
            raise BadRequest(BAD_FILTERS) from None
        column = allowed.get(name)
        if column is None:
            raise BadRequest(f"{NOT_FILTERABLE}: {name}")
        if predicate not in column.predicates:
            raise BadRequest(f"{PREDICATE_NOT_SUPPORTED}: {name} {predicate.value}")
        try:
            value = column.convert(value_text)
        except (ValueError, TypeError):
            raise BadRequest(BAD_FILTERS) from None
        filters.append(Filter(name, predicate, value))
    return filters


def where(filters: list[Filter], columns: Mapping[str, Any]) -> ColumnElement[bool] | None:
    """One SQLAlchemy condition for parsed filters; `columns` maps API names to column expressions."""
    clauses = []
    for item in filters:
        column = columns[item.column]
        match item.predicate:
            case Predicate.EQ:
                clauses.append(column == item.value)
            case Predicate.NEQ:
                clauses.append(not_(column == item.value) | column.is_(None))
            case Predicate.APPROX:
                pattern = "%" + str(item.value).replace("\\", "\\\\").replace("%", r"\%").replace("_", r"\_") + "%"
                clauses.append(cast(column, SAString).ilike(pattern, escape="\\"))
            case Predicate.GT:
                clauses.append(column > item.value)
            case Predicate.GTE:
                clauses.append(column >= item.value)
            case Predicate.LT:
                clauses.append(column < item.value)
            case Predicate.LTE:
                clauses.append(column <= item.value)
    return and_(*clauses) if clauses else None
