from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, CheckConstraint, DateTime, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, utcnow


class DatapipeStatus(Base):
    """The single row the datapipe writes and `GET /api/v2/datapipe/status` reads."""

    __tablename__ = "datapipe_status"
    __table_args__ = (CheckConstraint("id = 1", name="single_row"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, default=1)
    status: Mapped[str] = mapped_column(String(16), nullable=False, default="idle")
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, default=utcnow)
    last_complete_analysis_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_analysis_run_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    analysis_requested: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
