from __future__ import annotations

import uuid
from datetime import datetime
from enum import IntEnum

from sqlalchemy import BigInteger, DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps, utcnow


class JobStatus(IntEnum):
    """The reference's job status values (reference/behaviour.md §4), shared with collection jobs."""

    INVALID = -1
    READY = 0
    RUNNING = 1
    COMPLETE = 2
    CANCELED = 3
    TIMED_OUT = 4
    FAILED = 5
    INGESTING = 6
    ANALYZING = 7
    PARTIALLY_COMPLETE = 8


# Jobs whose files may still change the graph: clearing the database cancels them.
ACTIVE_JOB_STATUSES = (JobStatus.RUNNING, JobStatus.INGESTING, JobStatus.ANALYZING)
FINISHED_JOB_STATUSES = (JobStatus.COMPLETE, JobStatus.CANCELED, JobStatus.TIMED_OUT, JobStatus.FAILED,
                         JobStatus.PARTIALLY_COMPLETE)


class IngestJob(Timestamps, Base):
    """One upload session: the files a client sends between `/file-upload/start` and `/end`.

    The counters are kept by the datapipe in the same transaction as each file's graph writes, so
    they always agree with the graph.
    """

    __tablename__ = "ingest_jobs"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    # Null for jobs made by `houndgraph ingest` directly on the database.
    user_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    user_email_address: Mapped[str | None] = mapped_column(String(255))
    status: Mapped[int] = mapped_column(Integer, nullable=False, index=True)
    status_message: Mapped[str] = mapped_column(String, nullable=False, default="")
    start_time: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, default=utcnow)
    end_time: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_ingest: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, default=utcnow)
    total_files: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    completed_files: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    failed_files: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    nodes_written: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
    edges_written: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
