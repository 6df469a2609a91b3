from __future__ import annotations

from typing import Any

from sqlalchemy import ForeignKey, Integer, Text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps


class CustomNodeKind(Timestamps, Base):
    """How the UI draws nodes of a kind (OpenGraph kinds): `{"icon": {"type", "name", "color"}}`."""

    __tablename__ = "custom_node_kinds"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind_name: Mapped[str] = mapped_column(Text, nullable=False, unique=True)
    config: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
    # Set when an extension's display node kind wrote this setting; cleared when the extension goes.
    schema_node_kind_id: Mapped[int | None] = mapped_column(ForeignKey("schema_node_kinds.id", ondelete="SET NULL"))
