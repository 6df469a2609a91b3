from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from houndgraph.analysis.zones.model import AutoCertify
from houndgraph.models.asset_group_tag_selector_seed import AssetGroupTagSelectorSeed
from houndgraph.models.base import Base


class AssetGroupTagSelector(Base):
    """A rule that selects a tag's members: its seeds, expanded by the tag's type during analysis."""

    __tablename__ = "asset_group_tag_selectors"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    asset_group_tag_id: Mapped[int] = mapped_column(
        ForeignKey("asset_group_tags.id", ondelete="CASCADE"), nullable=False)
    created_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_by: Mapped[str | None] = mapped_column(Text)
    updated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    updated_by: Mapped[str | None] = mapped_column(Text)
    disabled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    disabled_by: Mapped[str | None] = mapped_column(Text)
    name: Mapped[str] = mapped_column(Text, nullable=False)
    description: Mapped[str] = mapped_column(Text, nullable=False, default="")
    is_default: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    allow_disable: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
    auto_certify: Mapped[int] = mapped_column(Integer, nullable=False, default=AutoCertify.OFF)
    seeds: Mapped[list[AssetGroupTagSelectorSeed]] = relationship(
        lazy="selectin", cascade="all, delete-orphan", order_by=AssetGroupTagSelectorSeed.id)
