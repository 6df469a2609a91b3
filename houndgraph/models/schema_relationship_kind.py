from __future__ import annotations

from typing import Any

from sqlalchemy import Boolean, ForeignKey, Integer, Text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps


class SchemaRelationshipKind(Timestamps, Base):
    """An edge kind an extension declares; path finding follows the traversable ones."""

    __tablename__ = "schema_relationship_kinds"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    extension_id: Mapped[int] = mapped_column(ForeignKey("schema_extensions.id", ondelete="CASCADE"),
                                              nullable=False)
    name: Mapped[str] = mapped_column(Text, nullable=False, unique=True)
    description: Mapped[str] = mapped_column(Text, nullable=False, default="")
    is_traversable: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    info: Mapped[list[dict[str, Any]]] = mapped_column(JSONB, nullable=False, default=list)
