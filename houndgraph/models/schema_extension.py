from __future__ import annotations

from sqlalchemy import Boolean, Integer, Text
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps


class SchemaExtension(Timestamps, Base):
    """An OpenGraph schema extension: a named, versioned set of kinds whose names start with its namespace and
    `_`. The built-in AD and Azure extensions (`is_builtin`) cannot be replaced or deleted."""

    __tablename__ = "schema_extensions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(Text, nullable=False, unique=True)
    display_name: Mapped[str] = mapped_column(Text, nullable=False)
    version: Mapped[str] = mapped_column(Text, nullable=False)
    namespace: Mapped[str] = mapped_column(Text, nullable=False, unique=True)
    is_builtin: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
