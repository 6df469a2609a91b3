from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from houndgraph.event.schemas import (
    CollectionFlags,
    CollectionRequest,
    CollectionView,
    DomainDetails,
    OUDetails,
)
from houndgraph.kit.nullable import or_zero
from houndgraph.models import ClientJob, DomainCollectionResult
from houndgraph.models.domain_collection_result import COUNTED
from houndgraph.models.ingest_job import JobStatus

DEFAULT_LIMIT = 100
# The string forms of the status enum (reference/behaviour.md §4), parsed case-insensitively.
STATUS_NAMES = {
    "INVALID": JobStatus.INVALID, "READY": JobStatus.READY, "RUNNING": JobStatus.RUNNING,
    "COMPLETE": JobStatus.COMPLETE, "CANCELED": JobStatus.CANCELED, "TIMEDOUT": JobStatus.TIMED_OUT,
    "FAILED": JobStatus.FAILED, "INGESTING": JobStatus.INGESTING, "ANALYZING": JobStatus.ANALYZING,
    "PARTIALLYCOMPLETE": JobStatus.PARTIALLY_COMPLETE,
}


def as_status(raw: str) -> JobStatus:
    """A job status by number or by name."""
    text = raw.strip()
    if text.lstrip("-").isdigit():
        return JobStatus(int(text))
    if text.upper() not in STATUS_NAMES:
        raise ValueError(raw)
    return STATUS_NAMES[text.upper()]


class JobRequest(CollectionRequest):
    """`model.client-scheduled-job` as `POST /api/v2/clients/{id}/jobs` reads it."""

    domain_controller: str | None = None


class JobStartRequest(BaseModel):
    id: int


class JobEndRequest(BaseModel):
    """How the client's run ended: COMPLETE or FAILED (a number or a name), and what it wants to say."""

    status: int | str = JobStatus.COMPLETE
    message: str = ""


class DomainResultView(BaseModel):
    """`model.domain-collection-result`."""

    id: int
    job_id: int
    domain_name: str
    success: bool
    message: str
    user_count: int
    group_count: int
    computer_count: int
    gpo_count: int
    ou_count: int
    container_count: int
    aiaca_count: int
    rootca_count: int
    enterpriseca_count: int
    ntauthstore_count: int
    certtemplate_count: int
    deleted_count: int
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, row: DomainCollectionResult) -> DomainResultView:
        counts: dict[str, Any] = {f"{name}_count": getattr(row, f"{name}_count") for name in COUNTED}
        return cls(id=row.id, job_id=row.job_id, domain_name=row.domain_name, success=row.success,
                   message=row.message, created_at=row.created_at, updated_at=row.updated_at, **counts)


class JobRun(BaseModel):
    """What both job shapes say of the run itself."""

    id: int
    client_id: uuid.UUID
    client_name: str
    event_id: int | None  # null.Int32: the plain value or null
    execution_time: datetime
    start_time: datetime
    end_time: datetime
    status: int
    status_message: str
    domain_results: list[DomainResultView]
    created_at: datetime
    updated_at: datetime

    @staticmethod
    def run_fields_of(job: ClientJob, client_name: str, results: list[DomainCollectionResult]) -> dict[str, Any]:
        return {"id": job.id, "client_id": job.client_id, "client_name": client_name,
                "event_id": job.event_id, "execution_time": job.execution_time,
                "start_time": or_zero(job.start_time), "end_time": or_zero(job.end_time), "status": job.status,
                "status_message": job.status_message, "domain_results": [DomainResultView.of(r) for r in results],
                "created_at": job.created_at, "updated_at": job.updated_at}


class JobView(JobRun, CollectionView):
    """`model.client-scheduled-job-display`: OU and domain references expanded."""

    domain_controller: str

    @classmethod
    def of(cls, job: ClientJob, client_name: str, ous: list[OUDetails], domains: list[DomainDetails],
           results: list[DomainCollectionResult]) -> JobView:
        return cls(**JobRun.run_fields_of(job, client_name, results), domain_controller=job.domain_controller or "",
                   **CollectionView.fields_of(job, ous, domains))


class ScheduledJobView(JobRun, CollectionFlags):
    """`model.client-scheduled-job`: what creating, starting and ending a job answer (references unexpanded)."""

    domain_controller: str | None  # null.String
    ous: list[str]
    domains: list[str]

    @classmethod
    def of(cls, job: ClientJob, client_name: str, results: list[DomainCollectionResult]) -> ScheduledJobView:
        return cls(**JobRun.run_fields_of(job, client_name, results), **CollectionFlags.flags_of(job),
                   domain_controller=job.domain_controller, ous=job.ous, domains=job.domains)


class JobLogView(BaseModel):
    log: str
