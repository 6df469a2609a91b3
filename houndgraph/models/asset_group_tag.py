from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, Integer, SmallInteger, Text
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base


class AssetGroupTag(Base):
    """A privilege zone, label or the owned tag; its members carry the graph kind `Tag_<name>`."""

    __tablename__ = "asset_group_tags"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    type: Mapped[int] = mapped_column(Integer, nullable=False)
    kind_id: Mapped[int | None] = mapped_column(SmallInteger, nullable=True)
    name: Mapped[str] = mapped_column(Text, nullable=False)
    description: Mapped[str] = mapped_column(Text, nullable=False, default="")
    created_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_by: Mapped[str | None] = mapped_column(Text)
    updated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    updated_by: Mapped[str | None] = mapped_column(Text)
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    deleted_by: Mapped[str | None] = mapped_column(Text)
    position: Mapped[int | None] = mapped_column(Integer)
    require_certify: Mapped[bool | None] = mapped_column(Boolean)
    analysis_enabled: Mapped[bool | None] = mapped_column(Boolean)
    glyph: Mapped[str | None] = mapped_column(Text)
