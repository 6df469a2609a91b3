from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import BigInteger, DateTime, String, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps


class ClientType(StrEnum):
    SHARPHOUND = "sharphound"
    AZUREHOUND = "azurehound"
    SHARPHOUND_ENTERPRISE = "sharphound_enterprise"
    AZUREHOUND_ENTERPRISE = "azurehound_enterprise"


class Client(Timestamps, Base):
    """A collector (SharpHound, AzureHound) on a customer's host that runs the jobs scheduled for it.

    It signs its requests with an `auth_tokens` row of its own; deleting it (softly) ends that token."""

    __tablename__ = "clients"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    name: Mapped[str] = mapped_column(String(255), nullable=False)
    type: Mapped[str] = mapped_column(String(32), nullable=False)
    domain_controller: Mapped[str | None] = mapped_column(String(255))
    # What the client says about itself at check-in (`PUT /api/v2/clients/update`).
    ip_address: Mapped[str] = mapped_column(String(64), nullable=False, default="")
    hostname: Mapped[str] = mapped_column(String(255), nullable=False, default="")
    configured_user: Mapped[str] = mapped_column(String(255), nullable=False, default="")
    version: Mapped[str] = mapped_column(String(64), nullable=False, default="")
    user_sid: Mapped[str | None] = mapped_column(String(255))
    last_checkin: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # The job the client is running now (set by `jobs/start`, cleared when it ends or is canceled).
    current_job_id: Mapped[int | None] = mapped_column(BigInteger)
    issuer_address: Mapped[str] = mapped_column(String(255), nullable=False, default="")
    issuer_address_override: Mapped[str] = mapped_column(String(255), nullable=False, default="")
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
