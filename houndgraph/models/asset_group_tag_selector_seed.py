from __future__ import annotations

from sqlalchemy import ForeignKey, Integer, Text
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base


class AssetGroupTagSelectorSeed(Base):
    __tablename__ = "asset_group_tag_selector_seeds"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    selector_id: Mapped[int] = mapped_column(
        ForeignKey("asset_group_tag_selectors.id", ondelete="CASCADE"), nullable=False, index=True)
    type: Mapped[int] = mapped_column(Integer, nullable=False)
    value: Mapped[str] = mapped_column(Text, nullable=False)
