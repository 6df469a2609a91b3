from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, DateTime, ForeignKey, Text, func
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, utcnow


class AssetGroupHistory(Base):
    """Who changed what in privilege zones, and when (tags, selectors, certifications)."""

    __tablename__ = "asset_group_history"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    actor: Mapped[str] = mapped_column(Text, nullable=False)
    email: Mapped[str | None] = mapped_column(Text)
    action: Mapped[str] = mapped_column(Text, nullable=False)
    target: Mapped[str] = mapped_column(Text, nullable=False, default="")
    asset_group_tag_id: Mapped[int] = mapped_column(
        ForeignKey("asset_group_tags.id", ondelete="CASCADE"), nullable=False)
    environment_id: Mapped[str] = mapped_column(Text, nullable=False, default="")
    note: Mapped[str] = mapped_column(Text, nullable=False, default="")
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), nullable=False, server_default=func.now(), default=utcnow, index=True)
