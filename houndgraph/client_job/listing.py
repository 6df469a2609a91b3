"""What the job lists may be sorted and filtered by (upstream spec, the `query.clients.job.*` parameters), and the
SQL each column reads: `GET /api/v2/jobs`, `/jobs/finished` (JOBS), a client's completed and available jobs
(CLIENT_JOBS, without the client's name)."""

from __future__ import annotations

from sqlalchemy import literal, null

from houndgraph.client_job.schemas import as_status
from houndgraph.event.schemas import BOOLEAN_FILTER, HYDRATE_DOMAINS, HYDRATE_OUS, TIME_FILTER
from houndgraph.kit.filters import ID_PREDICATES, ORDERED_PREDICATES, STRING_PREDICATES, FilterColumn, as_int, as_uuid
from houndgraph.kit.query import PAGE_PARAMETERS, Column, ListColumns, list_columns
from houndgraph.kit.sorting import SortKey
from houndgraph.models import Client, ClientJob, IngestJob
from houndgraph.models.collection import COLLECTION_FLAGS

_TEXT = FilterColumn(STRING_PREDICATES)
_COLUMNS: dict[str, Column] = {
    "event_id": Column(ClientJob.event_id, FilterColumn(ORDERED_PREDICATES, as_int)),
    "execution_time": Column(ClientJob.execution_time, TIME_FILTER),
    "status": Column(ClientJob.status, FilterColumn(ID_PREDICATES, as_status)),
    "start_time": Column(ClientJob.start_time, TIME_FILTER),
    "end_time": Column(ClientJob.end_time, TIME_FILTER),
    "domain_controller": Column(ClientJob.domain_controller, _TEXT),
    "last_ingest": Column(IngestJob.last_ingest, TIME_FILTER),
    "id": Column(ClientJob.id, FilterColumn(ORDERED_PREDICATES, as_int)),
    "created_at": Column(ClientJob.created_at, TIME_FILTER),
    "updated_at": Column(ClientJob.updated_at, TIME_FILTER),
    "deleted_at": Column(ClientJob.deleted_at, TIME_FILTER),
    **{flag: Column(getattr(ClientJob, flag), BOOLEAN_FILTER, sortable=False) for flag in COLLECTION_FLAGS},
    # The reference's jobs carry an event title and a log file path; here a job's log is its `log` text and
    # events have no title, so these filters match what such jobs would show: no title, no path.
    "event_title": Column(literal(""), _TEXT, sortable=False),
    "log_path": Column(null(), _TEXT, sortable=False),
    "client_id": Column(ClientJob.client_id, FilterColumn(ID_PREDICATES, as_uuid), sortable=False),
}


def _jobs(**extra: Column) -> ListColumns:
    return list_columns({**extra, **_COLUMNS}, default_sort=(SortKey("execution_time"), SortKey("id")),
                        also=PAGE_PARAMETERS | {HYDRATE_DOMAINS, HYDRATE_OUS})


JOBS = _jobs(client_name=Column(Client.name))
CLIENT_JOBS = _jobs()
