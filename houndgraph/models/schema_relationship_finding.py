from __future__ import annotations

from typing import Any

from sqlalchemy import ForeignKey, Integer, Text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps


class SchemaRelationshipFinding(Timestamps, Base):
    """A finding an extension declares on one of its edge kinds, with its remediation text (kept, not yet
    analysed: the OpenGraph findings are not computed)."""

    __tablename__ = "schema_relationship_findings"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    extension_id: Mapped[int] = mapped_column(ForeignKey("schema_extensions.id", ondelete="CASCADE"),
                                              nullable=False)
    name: Mapped[str] = mapped_column(Text, nullable=False, unique=True)
    display_name: Mapped[str] = mapped_column(Text, nullable=False, default="")
    relationship_kind: Mapped[str] = mapped_column(Text, nullable=False)
    environment_kind: Mapped[str] = mapped_column(Text, nullable=False, default="")
    remediation: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, default=dict)
