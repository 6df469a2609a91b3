from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import BigInteger, Boolean, DateTime, ForeignKey, Integer, String, Uuid
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps


class TaskState(StrEnum):
    PENDING = "pending"
    # Claimed by the datapipe; a task left here by a crash is picked up again at the next tick.
    RUNNING = "running"
    COMPLETE = "complete"
    FAILED = "failed"
    CANCELED = "canceled"


UNFINISHED_TASK_STATES = (TaskState.PENDING, TaskState.RUNNING)
FINISHED_TASK_STATES = (TaskState.COMPLETE, TaskState.FAILED, TaskState.CANCELED)


class IngestTask(Timestamps, Base):
    """One JSON document to ingest: an uploaded file, or one member of an uploaded zip archive."""

    __tablename__ = "ingest_tasks"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("ingest_jobs.id", ondelete="CASCADE"), nullable=False, index=True)
    file_name: Mapped[str] = mapped_column(String, nullable=False)
    # The uploaded archive's name for a zip member.
    parent_file_name: Mapped[str | None] = mapped_column(String)
    # Relative to the uploads folder of the host that reads it for an upload (kept in `upload_chunks` meanwhile);
    # absolute for a file `houndgraph ingest` reads in place.
    stored_path: Mapped[str] = mapped_column(String, nullable=False)
    # The upload (`upload_chunks`) the task reads; null for a file read in place.
    upload_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    # The size of the task's JSON document (a zip member's uncompressed size), known at upload.
    document_bytes: Mapped[int | None] = mapped_column(BigInteger)
    # The member of the archive at `stored_path` this task reads; null: the stored file is the document.
    member_name: Mapped[str | None] = mapped_column(String)
    # False for files `houndgraph ingest` reads in place: the datapipe never deletes those.
    owns_file: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    state: Mapped[str] = mapped_column(String(16), nullable=False, default=TaskState.PENDING, index=True)
    errors: Mapped[list[Any]] = mapped_column(JSONB, nullable=False, default=list)
    warnings: Mapped[list[Any]] = mapped_column(JSONB, nullable=False, default=list)
    # Incremented (and committed) before each try, so a file that kills the process is given up on.
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    nodes_written: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
    edges_written: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
    # When the datapipe began reading the file (its last attempt) and when it finished; null until then.
    start_time: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    end_time: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
