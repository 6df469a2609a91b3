from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import BigInteger, Boolean, DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps


class AuthSecret(Timestamps, Base):
    """A user's password, as an argon2 digest."""

    __tablename__ = "auth_secrets"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), nullable=False, unique=True
    )
    digest: Mapped[str] = mapped_column(String, nullable=False)
    digest_method: Mapped[str] = mapped_column(String(32), nullable=False, default="argon2")
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    # A password set by an administrator (or printed at first start) must be changed at next login.
    must_change: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    # RFC 6238 one-time passwords: the shared secret once enrolled, asked for at login once activated.
    totp_secret: Mapped[str | None] = mapped_column(Text, nullable=True)
    totp_activated: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False, server_default="false")
    # The time step (30 s) of the last one-time code accepted at login: a code is good once, and no older one after.
    totp_last_step: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
