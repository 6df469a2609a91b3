"""What the SSO provider list may be sorted and filtered by, and the SQL each column reads."""

from __future__ import annotations

from houndgraph.kit.filters import ORDERED_PREDICATES, STRING_PREDICATES, FilterColumn, as_datetime, as_int
from houndgraph.kit.query import Column, list_columns
from houndgraph.kit.sorting import SortKey
from houndgraph.models import SSOProvider

_TEXT = FilterColumn(STRING_PREDICATES)
_TIME = FilterColumn(ORDERED_PREDICATES, as_datetime)

PROVIDERS = list_columns({
    "id": Column(SSOProvider.id, FilterColumn(ORDERED_PREDICATES, as_int)),
    "name": Column(SSOProvider.name, _TEXT),
    "slug": Column(SSOProvider.slug, _TEXT),
    "type": Column(SSOProvider.type, _TEXT),
    "created_at": Column(SSOProvider.created_at, _TIME),
    "updated_at": Column(SSOProvider.updated_at, _TIME),
}, default_sort=(SortKey("created_at"),))
