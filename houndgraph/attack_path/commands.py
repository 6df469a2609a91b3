"""`houndgraph findings`: the current findings, read straight from the database."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from houndgraph.analysis.findings.catalogue import severity
from houndgraph.models import AttackPathFinding

COLUMNS = ("finding", "domain_sid", "principal", "principal_kind", "target", "target_kind", "impact_count",
           "impact_percentage", "severity", "accepted", "id")


def current_findings(session: Session, domain: str | None = None) -> list[dict[str, Any]]:
    """Live findings, largest impact first, one flat record each (names where the node has one)."""
    now = datetime.now(UTC)
    query = select(AttackPathFinding).where(AttackPathFinding.deleted_at.is_(None))
    if domain:
        query = query.where(AttackPathFinding.domain_sid == domain.upper())
    query = query.order_by(AttackPathFinding.impact_count.desc(), AttackPathFinding.finding, AttackPathFinding.id)
    return [{
        "finding": row.finding, "domain_sid": row.domain_sid,
        "principal": row.principal_props.get("name") or row.principal, "principal_kind": row.principal_kind,
        "target": (row.target_props or {}).get("name") or row.target, "target_kind": row.target_kind,
        "impact_count": row.impact_count, "impact_percentage": round(row.impact_percentage, 4),
        "severity": severity(row.impact_percentage),
        "accepted": row.accepted_until is not None and row.accepted_until > now, "id": row.id,
    } for row in session.scalars(query)]
