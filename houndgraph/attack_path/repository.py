"""SQL of the findings, their per-run counts and the posture rows (written by `analysis.findings`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, Select, and_, func, select, text
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import with_expression

from houndgraph.attack_path.listing import FINDINGS, LAST_FOUND_AT, POSTURE, SPARKLINE
from houndgraph.graph.kinds import ADNode, AZNode
from houndgraph.kit.filters import Filter, where
from houndgraph.kit.pagination import Page
from houndgraph.kit.sorting import SortKey, order_by
from houndgraph.models import AttackPathFinding, AttackPathPosture, AttackPathRiskCount

F = AttackPathFinding


def accepted_at(now: datetime) -> ColumnElement[bool]:
    return and_(F.accepted_until.is_not(None), F.accepted_until > now)


async def environment_exists(session: AsyncSession, environment: str) -> bool:
    """A Domain or AZTenant node with this object id, or findings / posture recorded for it."""
    row = await session.execute(text(
        "SELECT EXISTS (SELECT 1 FROM node n WHERE n.properties->>'objectid' = :id AND n.kind_ids && "
        "(SELECT coalesce(array_agg(id), '{}') FROM kind WHERE name IN (:domain, :tenant))) "
        "OR EXISTS (SELECT 1 FROM attack_path_posture WHERE domain_sid = :id)"),
        {"id": environment, "domain": ADNode.Domain.value, "tenant": AZNode.Tenant.value})
    return bool(row.scalar())


async def list_findings(session: AsyncSession, environment: str | None, filters: Sequence[Filter],
                        accepted: bool | None, now: datetime, sort: Sequence[SortKey],
                        page: Page) -> tuple[list[AttackPathFinding], int]:
    """Live findings of one environment (every environment with None)."""
    conditions: list[ColumnElement[bool]] = [F.deleted_at.is_(None)]
    if environment is not None:
        conditions.append(F.domain_sid == environment)
    condition = where(list(filters), FINDINGS.expressions)
    if condition is not None:
        conditions.append(condition)
    if accepted is not None:
        conditions.append(accepted_at(now) if accepted else ~accepted_at(now))
    count = await session.scalar(select(func.count()).select_from(F).where(*conditions))
    rows = await session.scalars(_findings().where(*conditions).order_by(*order_by(sort, FINDINGS.expressions), F.id)
                                 .offset(page.skip).limit(page.limit))
    return list(rows), int(count or 0)


async def finding_types(session: AsyncSession, environment: str) -> list[str]:
    rows = await session.scalars(select(F.finding).distinct()
                                 .where(F.domain_sid == environment, F.deleted_at.is_(None)).order_by(F.finding))
    return list(rows)


async def get_finding(session: AsyncSession, finding_id: int) -> AttackPathFinding | None:
    return await session.scalar(_findings().where(F.id == finding_id, F.deleted_at.is_(None)))


def _findings() -> Select[AttackPathFinding]:
    """Finding rows with the time the last run found them (see `AttackPathFinding.last_found_at`)."""
    return select(F).options(with_expression(F.last_found_at, LAST_FOUND_AT))


async def risk_counts(session: AsyncSession, environment: str, filters: Sequence[Filter], start: datetime,
                      end: datetime, sort: Sequence[SortKey]) -> list[AttackPathRiskCount]:
    R = AttackPathRiskCount
    conditions: list[ColumnElement[bool]] = [R.domain_sid == environment, R.created_at >= start, R.created_at < end]
    condition = where(list(filters), SPARKLINE.expressions)
    if condition is not None:
        conditions.append(condition)
    rows = await session.scalars(select(R).where(*conditions).order_by(*order_by(sort, SPARKLINE.expressions), R.id))
    return list(rows)


async def posture(session: AsyncSession, filters: Sequence[Filter], start: datetime, end: datetime,
                  sort: Sequence[SortKey], page: Page) -> tuple[list[AttackPathPosture], int]:
    P = AttackPathPosture
    conditions: list[ColumnElement[bool]] = [P.created_at >= start, P.created_at < end]
    condition = where(list(filters), POSTURE.expressions)
    if condition is not None:
        conditions.append(condition)
    count = await session.scalar(select(func.count()).select_from(P).where(*conditions))
    rows = await session.scalars(select(P).where(*conditions).order_by(*order_by(sort, POSTURE.expressions), P.id)
                                 .offset(page.skip).limit(page.limit))
    return list(rows), int(count or 0)


async def environment_names(session: AsyncSession) -> dict[str, str]:
    """The name of every Domain and AZTenant node, by object id."""
    rows = await session.execute(text(
        "SELECT n.properties->>'objectid', coalesce(n.properties->>'name', n.properties->>'objectid') FROM node n "
        "WHERE n.properties ? 'objectid' AND n.kind_ids && "
        "(SELECT coalesce(array_agg(id), '{}') FROM kind WHERE name IN (:domain, :tenant))"),
        {"domain": ADNode.Domain.value, "tenant": AZNode.Tenant.value})
    return {str(object_id).upper(): str(name) for object_id, name in rows.all()}


async def report_history(session: AsyncSession, environment: str | None, start: datetime,
                         end: datetime) -> tuple[list[AttackPathPosture], list[AttackPathRiskCount]]:
    """Posture rows and per-type counts in the window, oldest first, of one environment (all with None)."""
    P, R = AttackPathPosture, AttackPathRiskCount
    posture = select(P).where(P.created_at >= start, P.created_at < end)
    counts = select(R).where(R.created_at >= start, R.created_at < end, R.finding_count > 0)
    if environment is not None:
        posture, counts = posture.where(P.domain_sid == environment), counts.where(R.domain_sid == environment)
    return (list(await session.scalars(posture.order_by(P.created_at, P.id))),
            list(await session.scalars(counts.order_by(R.created_at, R.id))))
