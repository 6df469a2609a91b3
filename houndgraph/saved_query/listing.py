"""What the saved-query list may be sorted and filtered by, and the SQL each column reads."""

from __future__ import annotations

from sqlalchemy import String, cast, literal_column

from houndgraph.kit.filters import ORDERED_PREDICATES, STRING_PREDICATES, FilterColumn, as_datetime, as_int
from houndgraph.kit.query import PAGE_PARAMETERS, Column, list_columns
from houndgraph.models import SavedQuery

_TEXT = FilterColumn(STRING_PREDICATES)
_TIME = FilterColumn(ORDERED_PREDICATES, as_datetime)

SAVED_QUERIES = list_columns({
    "id": Column(SavedQuery.id, FilterColumn(ORDERED_PREDICATES, as_int)),
    # Compared as text (`~eq:` and the like), which sorts as the id does: its text has one shape.
    "user_id": Column(cast(SavedQuery.user_id, String), FilterColumn(STRING_PREDICATES, str.lower)),
    "name": Column(SavedQuery.name, _TEXT),
    "query": Column(SavedQuery.query, _TEXT),
    "description": Column(SavedQuery.description, _TEXT),
    "created_at": Column(SavedQuery.created_at, _TIME),
    "updated_at": Column(SavedQuery.updated_at, _TIME),
    # Rows are deleted, never soft-deleted: deleted_at is null everywhere and sorting on it keeps the order.
    "deleted_at": Column(literal_column("NULL")),
}, also=PAGE_PARAMETERS | {"scope"})
