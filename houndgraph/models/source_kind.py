from __future__ import annotations

from sqlalchemy import Boolean, Identity, SmallInteger, String
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base

# Seeded by migration 0003 with these ids, as the reference numbers them.
BUILTIN_SOURCE_KINDS = {1: "Base", 2: "AZBase"}


class SourceKind(Base):
    """A kind that says where nodes came from: `Base` (AD), `AZBase` (Azure) and each OpenGraph
    `metadata.source_kind`. `POST /api/v2/clear-database` deletes graph data by these ids."""

    __tablename__ = "source_kinds"

    id: Mapped[int] = mapped_column(SmallInteger, Identity(start=len(BUILTIN_SOURCE_KINDS) + 1), primary_key=True)
    name: Mapped[str] = mapped_column(String(255), nullable=False, unique=True)
    active: Mapped[bool] = mapped_column(Boolean, nullable=False, default=True)
