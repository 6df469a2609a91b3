from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, DateTime, Index, String, func
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base


class LoginFailure(Base):
    """One failed login; kept in the database so every API process throttles alike."""

    __tablename__ = "login_failures"
    __table_args__ = (
        Index("login_failures_address_time_idx", "client_address", "failed_at"),
        Index("login_failures_username_time_idx", "username", "failed_at"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    username: Mapped[str] = mapped_column(String(255), nullable=False, index=True)
    failed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, server_default=func.now())
    # Where the attempt came from (the connection's peer, or the proxy's forwarded address when trusted).
    client_address: Mapped[str] = mapped_column(String(64), nullable=False, server_default="")
