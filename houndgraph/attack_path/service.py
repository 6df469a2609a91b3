"""Findings, their acceptance and history: what the routes ask, in typed values."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.analysis.findings.catalogue import FINDING_TYPES, FindingType, Shape
from houndgraph.attack_path import repository
from houndgraph.attack_path.schemas import AcceptanceRequest, ListFinding, RelationshipFinding, finding_view
from houndgraph.datapipe import service as datapipe_service
from houndgraph.errors import BadRequest, NotFound
from houndgraph.kit.filters import Filter, Predicate
from houndgraph.kit.pagination import Page
from houndgraph.kit.sorting import SortKey
from houndgraph.models import AttackPathPosture, AttackPathRiskCount

# Accepted "until further notice": a date no run will reach.
INDEFINITELY = datetime(9999, 12, 31, tzinfo=UTC)
UNKNOWN_FINDING = "unknown finding type"


@dataclass(frozen=True, slots=True)
class Window:
    start: datetime
    end: datetime


def finding_types(names: Sequence[Filter] = ()) -> list[FindingType]:
    """The catalogue, optionally filtered by name (`eq` / `neq`), in name order."""
    found = sorted(FINDING_TYPES.values(), key=lambda finding: finding.name)
    for item in names:
        if item.predicate is Predicate.EQ:
            found = [finding for finding in found if finding.name == item.value]
        else:
            found = [finding for finding in found if finding.name != item.value]
    return found


def finding_type(name: str) -> FindingType:
    finding = FINDING_TYPES.get(name)
    if finding is None:
        raise BadRequest(f"{UNKNOWN_FINDING}: {name}")
    return finding


async def _environment(session: AsyncSession, environment: str) -> str:
    environment = environment.upper()
    if not await repository.environment_exists(session, environment):
        raise NotFound()
    return environment


async def list_findings(session: AsyncSession, environment: str, filters: Sequence[Filter], accepted: bool | None,
                        sort: Sequence[SortKey], page: Page,
                        now: datetime | None = None) -> tuple[list[RelationshipFinding | ListFinding], int]:
    now = now or datetime.now(UTC)
    environment = await _environment(session, environment)
    rows, count = await repository.list_findings(session, environment, filters, accepted, now, sort, page)
    return [finding_view(row, now) for row in rows], count


async def finding_details(session: AsyncSession, environment: str, finding: str, filters: Sequence[Filter],
                          accepted: bool | None, sort: Sequence[SortKey], page: Page,
                          ) -> tuple[Shape, list[RelationshipFinding | ListFinding], int]:
    """The findings of one type: all relationship findings or all list findings, as the type says."""
    shape = finding_type(finding).shape
    views, count = await list_findings(session, environment, [Filter("finding", Predicate.EQ, finding), *filters],
                                       accepted, sort, page)
    return shape, views, count


async def available_types(session: AsyncSession, environment: str, names: Sequence[Filter] = ()) -> list[str]:
    environment = await _environment(session, environment)
    present = set(await repository.finding_types(session, environment))
    return [finding.name for finding in finding_types(names) if finding.name in present]


async def accept(session: AsyncSession, finding_id: int, request: AcceptanceRequest,
                 now: datetime | None = None) -> RelationshipFinding | ListFinding:
    """Accept a finding until a date (indefinitely without one), or withdraw the acceptance."""
    now = now or datetime.now(UTC)
    finding = await repository.get_finding(session, finding_id)
    if finding is None:
        raise NotFound()
    if request.risk_type is not None and request.risk_type != finding.finding:
        raise BadRequest(f"risk_type {request.risk_type} does not match the finding's type {finding.finding}")
    if not request.accepted:
        finding.accepted_until = None
    else:
        until = request.accept_until or INDEFINITELY
        if until.tzinfo is None:
            until = until.replace(tzinfo=UTC)
        if until <= now:
            raise BadRequest("accept_until must be in the future")
        finding.accepted_until = until
    finding.updated_at = now
    await session.flush()
    return finding_view(finding, now)


async def sparkline(session: AsyncSession, environment: str, findings: Sequence[Filter], window: Window,
                    sort: Sequence[SortKey]) -> list[AttackPathRiskCount]:
    environment = await _environment(session, environment)
    return await repository.risk_counts(session, environment, findings, window.start, window.end, sort)


async def posture(session: AsyncSession, filters: Sequence[Filter], window: Window, sort: Sequence[SortKey],
                  page: Page) -> tuple[list[AttackPathPosture], int]:
    return await repository.posture(session, filters, window.start, window.end, sort, page)


async def request_refresh(session: AsyncSession) -> None:
    """Findings are computed at the end of every analysis: a refresh is an analysis request."""
    await datapipe_service.request_analysis(session)
