from __future__ import annotations

from typing import Any

from sqlalchemy import Integer, String
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps


class Parameter(Timestamps, Base):
    """One application configuration parameter (`/api/v2/config`)."""

    __tablename__ = "parameters"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(128), nullable=False, unique=True)
    name: Mapped[str] = mapped_column(String(255), nullable=False)
    description: Mapped[str] = mapped_column(String, nullable=False, default="")
    value: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
