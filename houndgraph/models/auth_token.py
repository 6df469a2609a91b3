from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, String, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps

HMAC_SHA256 = "hmac-sha2-256"


class AuthToken(Timestamps, Base):
    """An API token for signed requests. HMAC needs the key itself, so the key is kept."""

    __tablename__ = "auth_tokens"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    # A token belongs to a user or (for collection clients) to a client, never both.
    user_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    client_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("clients.id", ondelete="CASCADE"), index=True)
    name: Mapped[str | None] = mapped_column(String(255))
    key: Mapped[str] = mapped_column(String, nullable=False)
    hmac_method: Mapped[str] = mapped_column(String(32), nullable=False, default=HMAC_SHA256)
    last_access: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # Set at creation while API token expiry is on (`auth.api_token_expiration`); never for a client's token.
    expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
