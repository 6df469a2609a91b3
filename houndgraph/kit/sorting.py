"""`sort_by` (repeatable, `-` prefix for descending) against a per-route allow-list."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from houndgraph.errors import NOT_SORTABLE, BadRequest


@dataclass(frozen=True, slots=True)
class SortKey:
    column: str
    descending: bool = False


def parse_sort(values: Iterable[str], allowed: Iterable[str], *,
               default: Sequence[SortKey] = (), not_sortable: str = NOT_SORTABLE) -> list[SortKey]:
    """`not_sortable` is the message prefix for a column off the list: the reference words it differently
    on some routes (e.g. `the specified column cannot be sorted` on the minimal user list)."""
    allowed_set = set(allowed)
    keys: list[SortKey] = []
    for raw in values:
        descending = raw.startswith("-")
        column = raw[1:] if descending else raw
        if not column:
            raise BadRequest("the specified column cannot be sorted because it is empty: ")
        if column not in allowed_set:
            raise BadRequest(f"{not_sortable}: {column}")
        keys.append(SortKey(column, descending))
    return keys or list(default)


def order_by(keys: Sequence[SortKey], columns: Mapping[str, Any]) -> list[Any]:
    """SQLAlchemy ORDER BY clauses for parsed keys; `columns` maps API names to column expressions."""
    return [columns[key.column].desc() if key.descending else columns[key.column].asc() for key in keys]
