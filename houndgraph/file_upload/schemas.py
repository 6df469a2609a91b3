from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import BaseModel

from houndgraph.kit.nullable import SqlNullTime, or_zero
from houndgraph.models import IngestJob, IngestTask

JSON_TYPE = "application/json"
ZIP_TYPES = ("application/zip", "application/x-zip-compressed", "application/zip-compressed")
ACCEPTED_TYPES = (JSON_TYPE, *ZIP_TYPES)
# Go's zero UUID: what the reference shows for a job no user started (here: `houndgraph ingest`).
NO_USER = uuid.UUID(int=0)


class IngestJobView(BaseModel):
    """A job as the reference lists it, plus the progress counters `houndgraph ingest` and UIs poll."""

    id: int
    user_id: uuid.UUID
    user_email_address: str
    status: int
    status_message: str
    start_time: datetime
    end_time: datetime
    last_ingest: datetime
    total_files: int
    failed_files: int
    completed_files: int
    nodes_written: int
    edges_written: int
    created_at: datetime
    updated_at: datetime
    deleted_at: SqlNullTime = SqlNullTime()

    @classmethod
    def of(cls, job: IngestJob) -> IngestJobView:
        return cls(
            id=job.id, user_id=job.user_id or NO_USER, user_email_address=job.user_email_address or "",
            status=job.status, status_message=job.status_message, start_time=job.start_time,
            end_time=or_zero(job.end_time), last_ingest=job.last_ingest, total_files=job.total_files,
            failed_files=job.failed_files, completed_files=job.completed_files, nodes_written=job.nodes_written,
            edges_written=job.edges_written, created_at=job.created_at, updated_at=job.updated_at,
        )


class CompletedTaskView(BaseModel):
    id: int
    file_name: str
    parent_file_name: str
    state: str
    errors: list[str]
    warnings: list[str]
    nodes_written: int
    edges_written: int
    # When the datapipe began and finished reading the file (Go's zero time for tasks older than these).
    start_time: datetime
    end_time: datetime
    created_at: datetime
    updated_at: datetime
    deleted_at: SqlNullTime = SqlNullTime()

    @classmethod
    def of(cls, task: IngestTask) -> CompletedTaskView:
        return cls(
            id=task.id, file_name=task.file_name, parent_file_name=task.parent_file_name or "", state=task.state,
            errors=[str(e) for e in task.errors], warnings=[str(w) for w in task.warnings],
            nodes_written=task.nodes_written, edges_written=task.edges_written,
            start_time=or_zero(task.start_time), end_time=or_zero(task.end_time), created_at=task.created_at,
            updated_at=task.updated_at,
        )


DEFAULT_LIMIT = 100
# The name an upload's file is shown under (the reference's header); the part of the URL names no file.
FILE_NAME_HEADER = "X-File-Upload-Name"
