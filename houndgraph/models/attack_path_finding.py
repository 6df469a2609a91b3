from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, DateTime, Float, Text, UniqueConstraint
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column, query_expression

from houndgraph.models.base import Base, Timestamps


class AttackPathFinding(Timestamps, Base):
    """One finding of the latest analysis (or a resolved one, `deleted_at` set), written by analysis.

    A list finding names a principal; a relationship finding also names the Tier Zero target and the edge.
    """

    __tablename__ = "attack_path_findings"
    __table_args__ = (UniqueConstraint("domain_sid", "finding", "principal_hash", name="uq_attack_path_findings_key"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    finding: Mapped[str] = mapped_column(Text, nullable=False)
    # The environment: an AD domain SID or an Azure tenant id.
    domain_sid: Mapped[str] = mapped_column(Text, nullable=False)
    principal_hash: Mapped[str] = mapped_column(Text, nullable=False)
    principal: Mapped[str] = mapped_column(Text, nullable=False)
    principal_kind: Mapped[str] = mapped_column(Text, nullable=False)
    principal_props: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, default=dict)
    target: Mapped[str | None] = mapped_column(Text)
    target_kind: Mapped[str | None] = mapped_column(Text)
    target_props: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    rel_kind: Mapped[str | None] = mapped_column(Text)
    rel_props: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    edge_id: Mapped[int | None] = mapped_column(BigInteger)
    impact_count: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
    impact_percentage: Mapped[float] = mapped_column(Float, nullable=False, default=0.0)
    accepted_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # When the last analysis that recorded findings ran, loaded with the row by the findings lists
    # (`attack_path.listing.LAST_FOUND_AT`): it found every finding left unresolved, without writing each row.
    last_found_at: Mapped[datetime | None] = query_expression()
