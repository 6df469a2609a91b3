from __future__ import annotations

from sqlalchemy import BigInteger, ForeignKey, Integer, Text
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.analysis.zones.model import Certification
from houndgraph.models.base import Base, Timestamps


class AssetGroupTagSelectorNode(Timestamps, Base):
    """A node a selector selected at the last analysis, with its certification and display fields."""

    __tablename__ = "asset_group_tag_selector_nodes"

    selector_id: Mapped[int] = mapped_column(
        ForeignKey("asset_group_tag_selectors.id", ondelete="CASCADE"), primary_key=True)
    node_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, index=True)
    certified: Mapped[int] = mapped_column(Integer, nullable=False, default=Certification.PENDING)
    certified_by: Mapped[str | None] = mapped_column(Text)
    source: Mapped[int] = mapped_column(Integer, nullable=False)
    node_primary_kind: Mapped[str] = mapped_column(Text, nullable=False, default="")
    node_environment_id: Mapped[str] = mapped_column(Text, nullable=False, default="")
    node_object_id: Mapped[str] = mapped_column(Text, nullable=False, default="")
    node_name: Mapped[str] = mapped_column(Text, nullable=False, default="")
