"""What `GET /api/v2/clients` may be sorted and filtered by (reference/behaviour.md §4), and the SQL each
column reads."""

from __future__ import annotations

from sqlalchemy import func, select

from houndgraph.event.schemas import HYDRATE_DOMAINS, HYDRATE_OUS, TIME_FILTER
from houndgraph.kit.filters import ID_PREDICATES, ORDERED_PREDICATES, STRING_PREDICATES, FilterColumn, as_int, as_uuid
from houndgraph.kit.query import PAGE_PARAMETERS, Column, list_columns
from houndgraph.kit.sorting import SortKey
from houndgraph.models import Client, ClientJob
from houndgraph.models.ingest_job import JobStatus

_COMPLETED_JOBS = (select(func.count()).where(ClientJob.client_id == Client.id,
                                              ClientJob.status == JobStatus.COMPLETE,
                                              ClientJob.deleted_at.is_(None))
                   .correlate(Client).scalar_subquery())
_TEXT = FilterColumn(STRING_PREDICATES)

CLIENTS = list_columns(
    {
        "name": Column(Client.name, _TEXT),
        "ip_address": Column(Client.ip_address, _TEXT),
        "hostname": Column(Client.hostname, _TEXT),
        "configured_user": Column(Client.configured_user, _TEXT),
        "version": Column(Client.version, _TEXT, sortable=False),
        "user_sid": Column(Client.user_sid, _TEXT, sortable=False),
        "domain_controller": Column(Client.domain_controller, _TEXT, sortable=False),
        "last_checkin": Column(Client.last_checkin, TIME_FILTER),
        "current_job_id": Column(Client.current_job_id, FilterColumn(ORDERED_PREDICATES, as_int), sortable=False),
        "completed_job_count": Column(_COMPLETED_JOBS, FilterColumn(ORDERED_PREDICATES, as_int)),
        "id": Column(Client.id, FilterColumn(ID_PREDICATES, as_uuid), sortable=False),
        "created_at": Column(Client.created_at, TIME_FILTER),
        "updated_at": Column(Client.updated_at, TIME_FILTER),
        "deleted_at": Column(Client.deleted_at, TIME_FILTER),
    },
    default_sort=(SortKey("name"),),
    also=PAGE_PARAMETERS | {HYDRATE_DOMAINS, HYDRATE_OUS},
)
