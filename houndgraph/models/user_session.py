from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import BigInteger, DateTime, ForeignKey, Integer
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps

AUTH_PROVIDER_SECRET = 0


class UserSession(Timestamps, Base):
    """The server side of a JWT: the token names this row; deleting the row revokes it."""

    __tablename__ = "user_sessions"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True
    )
    auth_provider_type: Mapped[int] = mapped_column(Integer, nullable=False, default=AUTH_PROVIDER_SECRET)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
