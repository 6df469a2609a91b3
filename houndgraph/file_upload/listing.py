"""What `GET /api/v2/file-upload` may be sorted and filtered by (the reference's list, plus the counters), and
the SQL each column reads."""

from __future__ import annotations

from sqlalchemy import DateTime, cast, null

from houndgraph.kit.filters import (
    ID_PREDICATES,
    ORDERED_PREDICATES,
    STRING_PREDICATES,
    FilterColumn,
    as_datetime,
    as_int,
    as_uuid,
)
from houndgraph.kit.query import PAGE_PARAMETERS, Column, list_columns
from houndgraph.models import IngestJob

_TIME = FilterColumn(ORDERED_PREDICATES, as_datetime)
_COUNT = FilterColumn(ORDERED_PREDICATES, as_int)

JOBS = list_columns({
    "user_email_address": Column(IngestJob.user_email_address, FilterColumn(STRING_PREDICATES)),
    "status": Column(IngestJob.status, _COUNT),
    "status_message": Column(IngestJob.status_message, FilterColumn(STRING_PREDICATES)),
    "start_time": Column(IngestJob.start_time, _TIME),
    "end_time": Column(IngestJob.end_time, _TIME),
    "last_ingest": Column(IngestJob.last_ingest, _TIME),
    "id": Column(IngestJob.id, _COUNT),
    "total_files": Column(IngestJob.total_files, _COUNT),
    "failed_files": Column(IngestJob.failed_files, _COUNT),
    "created_at": Column(IngestJob.created_at, _TIME),
    "updated_at": Column(IngestJob.updated_at, _TIME),
    # Jobs are deleted for good (clear-database), never soft-deleted: the column is always null.
    "deleted_at": Column(cast(null(), DateTime(timezone=True)), _TIME),
    "user_id": Column(IngestJob.user_id, FilterColumn(ID_PREDICATES, as_uuid), sortable=False),
}, also=PAGE_PARAMETERS)
