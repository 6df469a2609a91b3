from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import BigInteger, DateTime, Float, Text, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from houndgraph.models.base import Base, Timestamps


class AttackPathRiskCount(Timestamps, Base):
    """Per analysis run, environment and finding type: the figures a sparkline draws (accepted findings left out)."""

    __tablename__ = "attack_path_risk_counts"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    run_id: Mapped[uuid.UUID] = mapped_column(Uuid, nullable=False)
    domain_sid: Mapped[str] = mapped_column(Text, nullable=False)
    finding: Mapped[str] = mapped_column(Text, nullable=False)
    finding_count: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
    impacted_asset_count: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
    # Percent (0-100) of the environment's enabled principals outside Tier Zero that reach any finding.
    composite_risk: Mapped[float] = mapped_column(Float, nullable=False, default=0.0)
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
