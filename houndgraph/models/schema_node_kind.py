from __future__ import annotations

from typing import Any

from sqlalchemy import Boolean, ForeignKey, Integer, Text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps


class SchemaNodeKind(Timestamps, Base):
    """A node kind an extension declares; a display kind also sets how the UI draws it (`custom_node_kinds`)."""

    __tablename__ = "schema_node_kinds"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    extension_id: Mapped[int] = mapped_column(ForeignKey("schema_extensions.id", ondelete="CASCADE"),
                                              nullable=False)
    name: Mapped[str] = mapped_column(Text, nullable=False, unique=True)
    display_name: Mapped[str] = mapped_column(Text, nullable=False, default="")
    description: Mapped[str] = mapped_column(Text, nullable=False, default="")
    is_display_kind: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    icon: Mapped[str] = mapped_column(Text, nullable=False, default="")
    icon_color: Mapped[str] = mapped_column(Text, nullable=False, default="")
    # The entity panel's sections for the kind: [{"key", "title", "position", "content"}].
    info: Mapped[list[dict[str, Any]]] = mapped_column(JSONB, nullable=False, default=list)
