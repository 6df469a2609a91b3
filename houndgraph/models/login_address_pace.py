from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, String
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base


class LoginAddressPace(Base):
    """When a paced address (past its failure limit) may next attempt a login, for every process (`auth.pace`)."""

    __tablename__ = "login_address_pace"
    __table_args__ = {"prefixes": ["UNLOGGED"]}

    client_address: Mapped[str] = mapped_column(String(64), primary_key=True)
    next_attempt_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
