from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import BigInteger, DateTime, Float, Text, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps


class AttackPathPosture(Timestamps, Base):
    """Per analysis run and environment: exposure, Tier Zero size and how many finding types are critical."""

    __tablename__ = "attack_path_posture"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    run_id: Mapped[uuid.UUID] = mapped_column(Uuid, nullable=False)
    domain_sid: Mapped[str] = mapped_column(Text, nullable=False)
    # Percent (0-100) of enabled users and computers outside Tier Zero with a path into Tier Zero.
    exposure_index: Mapped[float] = mapped_column(Float, nullable=False, default=0.0)
    exposed_count: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
    principal_count: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
    tier_zero_count: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
    critical_risk_count: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
    finding_count: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
