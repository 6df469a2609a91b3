from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Boolean, DateTime, ForeignKey
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, utcnow


class PurgeRequest(Base):
    """A queued `POST /api/v2/clear-database`; the datapipe carries it out and deletes the row."""

    __tablename__ = "purge_requests"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    requested_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    requested_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, default=utcnow)
    delete_all_graph: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    # Nodes carrying none of the source kinds (the reference's source kind id 0).
    delete_sourceless_graph: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    # Source kind names (resolved from the ids the client sent while the request was checked).
    delete_source_kinds: Mapped[list[Any]] = mapped_column(JSONB, nullable=False, default=list)
    delete_relationships: Mapped[list[Any]] = mapped_column(JSONB, nullable=False, default=list)
    delete_file_ingest_history: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    delete_data_quality_history: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    delete_asset_group_selectors: Mapped[list[Any]] = mapped_column(JSONB, nullable=False, default=list)
