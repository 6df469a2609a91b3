"""What the available-domains list may be sorted and filtered by: a handful of rows filtered and sorted in
memory, each column naming the key of the row it reads."""

from __future__ import annotations

from houndgraph.kit.filters import STRING_PREDICATES, FilterColumn
from houndgraph.kit.query import Column, list_columns
from houndgraph.kit.sorting import SortKey

_TEXT = FilterColumn(STRING_PREDICATES)

DOMAINS = list_columns({
    "objectid": Column("id", _TEXT),
    "name": Column("name", _TEXT),
    "collected": Column("collected", _TEXT, sortable=False),
}, default_sort=(SortKey("name"),))
