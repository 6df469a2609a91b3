from __future__ import annotations

from sqlalchemy import ForeignKey, Integer, Text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps


class SchemaEnvironment(Timestamps, Base):
    """An environment an extension declares: the node kind that is one, the source kind of its data and the node
    kinds that are its principals."""

    __tablename__ = "schema_environments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    extension_id: Mapped[int] = mapped_column(ForeignKey("schema_extensions.id", ondelete="CASCADE"),
                                              nullable=False)
    environment_kind: Mapped[str] = mapped_column(Text, nullable=False, unique=True)
    source_kind: Mapped[str] = mapped_column(Text, nullable=False)
    principal_kinds: Mapped[list[str]] = mapped_column(ARRAY(Text), nullable=False, default=list)
