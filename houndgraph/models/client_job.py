from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import BigInteger, DateTime, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps
from houndgraph.models.collection import CollectionScope


class ClientJob(CollectionScope, Timestamps, Base):
    """One collection run of a client, scheduled from an event or made ad hoc. Its status is the shared
    `JobStatus`; the files the client uploads go into `ingest_job_id`, an upload job of the file-upload
    pipeline, whose progress (ingesting, analyzing, complete) the job then follows."""

    __tablename__ = "client_jobs"
    __table_args__ = (UniqueConstraint("event_id", "execution_time", name="uq_client_jobs_event_occurrence"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    client_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"), nullable=False,
                                                 index=True)
    event_id: Mapped[int | None] = mapped_column(ForeignKey("client_events.id", ondelete="SET NULL"))
    execution_time: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    start_time: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    end_time: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    status: Mapped[int] = mapped_column(Integer, nullable=False, index=True)
    status_message: Mapped[str] = mapped_column(String, nullable=False, default="")
    domain_controller: Mapped[str | None] = mapped_column(String(255))
    # What the client reported (`POST /api/v2/clients/error`) while running this job.
    log: Mapped[str] = mapped_column(Text, nullable=False, default="")
    ingest_job_id: Mapped[int | None] = mapped_column(ForeignKey("ingest_jobs.id", ondelete="SET NULL"))
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
