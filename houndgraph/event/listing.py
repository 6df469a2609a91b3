"""What `GET /api/v2/events` may be sorted and filtered by (upstream spec, ListClientSchedules), and the SQL
each column reads."""

from __future__ import annotations

from houndgraph.event.schemas import BOOLEAN_FILTER, HYDRATE_DOMAINS, HYDRATE_OUS, TIME_FILTER
from houndgraph.kit.filters import ID_PREDICATES, ORDERED_PREDICATES, STRING_PREDICATES, FilterColumn, as_int, as_uuid
from houndgraph.kit.query import PAGE_PARAMETERS, Column, list_columns
from houndgraph.kit.sorting import SortKey
from houndgraph.models import ClientEvent
from houndgraph.models.collection import COLLECTION_FLAGS

EVENTS = list_columns(
    {
        "next_scheduled_at": Column(ClientEvent.next_scheduled_at, TIME_FILTER),
        "id": Column(ClientEvent.id, FilterColumn(ORDERED_PREDICATES, as_int)),
        "rrule": Column(ClientEvent.rrule, FilterColumn(STRING_PREDICATES), sortable=False),
        "client_id": Column(ClientEvent.client_id, FilterColumn(ID_PREDICATES, as_uuid), sortable=False),
        **{flag: Column(getattr(ClientEvent, flag), BOOLEAN_FILTER, sortable=False) for flag in COLLECTION_FLAGS},
        "created_at": Column(ClientEvent.created_at, TIME_FILTER),
        "updated_at": Column(ClientEvent.updated_at, TIME_FILTER),
        "deleted_at": Column(ClientEvent.deleted_at, TIME_FILTER),
    },
    default_sort=(SortKey("id"),),
    also=PAGE_PARAMETERS | {HYDRATE_DOMAINS, HYDRATE_OUS},
)
