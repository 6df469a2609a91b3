"""Findings, their acceptance and history: what the routes ask, in typed values."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.analysis.findings.finding_types import FINDING_TYPES, FindingType
from houndgraph.attack_path import report, repository
from houndgraph.attack_path.listing import ACCEPTED_FILTERS
from houndgraph.attack_path.schemas import (
    DEFAULT_WINDOW_DAYS,
    AcceptanceRequest,
    ListFinding,
    RelationshipFinding,
    finding_view,
)
from houndgraph.datapipe import service as datapipe_service
from houndgraph.errors import BAD_FILTERS, BadRequest, NotFound
from houndgraph.kit.filters import Filter, Predicate
from houndgraph.kit.pagination import Page
from houndgraph.kit.query import ListQuery, parse_time
from houndgraph.kit.repository import get_or_404
from houndgraph.kit.sorting import SortKey
from houndgraph.models import AttackPathPosture, AttackPathRiskCount

# Accepted "until further notice": a date no run will reach.
INDEFINITELY = datetime(9999, 12, 31, tzinfo=UTC)
UNKNOWN_FINDING = "unknown finding type"
MISSING_FINDING = "a finding type is required (finding=<type>)"
_ACCEPTANCE = {"accepted": True, "unaccepted": False, "all": None, "": None}


@dataclass(frozen=True, slots=True)
class Window:
    start: datetime
    end: datetime


def parse_finding(raw: str | None) -> list[Filter]:
    """`finding=T0GenericAll` (as BloodHound clients send it), or `eq:` / `neq:` before the type."""
    if not raw:
        return []
    predicate_text, separator, value = raw.partition(":")
    if not separator:
        return [Filter("finding", Predicate.EQ, raw)]
    if predicate_text not in (Predicate.EQ, Predicate.NEQ):
        raise BadRequest(BAD_FILTERS)
    return [Filter("finding", Predicate(predicate_text), value)]


def parse_acceptance(raw: str | None) -> bool | None:
    """`filterAccepted`: accepted, unaccepted, all (or empty)."""
    if raw is None:
        return None
    if raw not in _ACCEPTANCE:
        raise BadRequest(BAD_FILTERS)
    return _ACCEPTANCE[raw]


def parse_window(start: str | None, end: str | None, now: datetime | None = None) -> Window:
    """`from` (inclusive, default 30 days ago) and `to` (exclusive, default now), RFC 3339."""
    now = now or datetime.now(UTC)
    return Window(parse_time(start, now - timedelta(days=DEFAULT_WINDOW_DAYS)), parse_time(end, now))


def _split_acceptance(filters: Sequence[Filter], accepted: bool | None) -> tuple[list[Filter], bool | None]:
    """Filters on columns, and the acceptance asked for (`Accepted=eq:false` and friends; the last one wins)."""
    columns = []
    for item in filters:
        if item.column in ACCEPTED_FILTERS:
            accepted = bool(item.value) == (item.predicate is Predicate.EQ)
        else:
            columns.append(item)
    return columns, accepted


def finding_types(names: Sequence[Filter] = ()) -> list[FindingType]:
    """Every finding type, optionally filtered by name (`eq` / `neq`), in name order."""
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


async def list_findings(session: AsyncSession, environment: str, findings: Sequence[Filter], query: ListQuery,
                        accepted: bool | None, page: Page,
                        now: datetime | None = None) -> tuple[list[RelationshipFinding | ListFinding], int]:
    """The findings of an environment, largest impact first unless sorted otherwise; `findings` filter the type."""
    now = now or datetime.now(UTC)
    environment = await _environment(session, environment)
    filters, accepted = _split_acceptance(query.filters, accepted)
    rows, count = await repository.list_findings(session, environment, [*findings, *filters], accepted, now,
                                                 query.sort, page)
    return [finding_view(row, now) for row in rows], count


async def current_findings(session: AsyncSession, domain: str | None = None,
                           now: datetime | None = None) -> list[RelationshipFinding | ListFinding]:
    """Every live finding (of one domain or tenant), largest impact first: what `houndgraph findings` prints."""
    now = now or datetime.now(UTC)
    rows, _ = await repository.list_findings(
        session, domain.upper() if domain else None, [], None, now,
        [SortKey("impact_count", descending=True), SortKey("finding")], Page(0, 2**62))
    return [finding_view(row, now) for row in rows]


async def finding_details(session: AsyncSession, environment: str, findings: Sequence[Filter], query: ListQuery,
                          accepted: bool | None, page: Page) -> tuple[list[RelationshipFinding | ListFinding], int]:
    """The findings of one type (`finding=` names it): all relationship findings or all list findings."""
    if len(findings) != 1 or findings[0].predicate is not Predicate.EQ:
        raise BadRequest(MISSING_FINDING)
    finding_type(str(findings[0].value))
    return await list_findings(session, environment, findings, query, accepted, page)


async def available_types(session: AsyncSession, environment: str, names: Sequence[Filter] = ()) -> list[str]:
    environment = await _environment(session, environment)
    present = set(await repository.finding_types(session, environment))
    return [finding.name for finding in finding_types(names) if finding.name in present]


async def accept(session: AsyncSession, finding_id: int, request: AcceptanceRequest,
                 now: datetime | None = None) -> RelationshipFinding | ListFinding:
    """Accept a finding until a date (indefinitely without one), or withdraw the acceptance."""
    now = now or datetime.now(UTC)
    finding = get_or_404(await repository.get_finding(session, finding_id))
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
    """One point per analysis run in the window for the type (`finding=` names it; required)."""
    if not findings:
        raise BadRequest(MISSING_FINDING)
    environment = await _environment(session, environment)
    return await repository.risk_counts(session, environment, findings, window.start, window.end, sort)


async def posture(session: AsyncSession, query: ListQuery, window: Window,
                  page: Page) -> tuple[list[AttackPathPosture], int]:
    return await repository.posture(session, query.filters, window.start, window.end, query.sort, page)


async def request_refresh(session: AsyncSession) -> None:
    """Findings are computed at the end of every analysis: a refresh is an analysis request."""
    await datapipe_service.request_analysis(session)


async def build_report(session: AsyncSession, environment: str | None, window: Window,
                       now: datetime | None = None) -> report.Report:
    """The posture report of one environment (every analysed one with None) over the window."""
    if environment is not None:
        environment = await _environment(session, environment)
    names = await repository.environment_names(session)
    postures, counts = await repository.report_history(session, environment, window.start, window.end)
    wanted = [environment] if environment else sorted({p.domain_sid for p in postures},
                                                      key=lambda sid: names.get(sid, sid))
    sections = [report.EnvironmentReport(
        object_id=sid, name=names.get(sid, sid), history=[p for p in postures if p.domain_sid == sid],
        top=report.top_findings([c for c in counts if c.domain_sid == sid], FINDING_TYPES)) for sid in wanted]
    title = f"Attack-path posture: {names.get(environment, environment)}" if environment else \
        "Attack-path posture: every domain and tenant"
    return report.Report(title=title, generated_at=now or datetime.now(UTC), start=window.start, end=window.end,
                         environments=sections)


REPORT_DAYS = 90
MAX_REPORT_DAYS = 3650
BAD_REPORT_DAYS = f"days must be a whole number from 1 to {MAX_REPORT_DAYS}"


def report_window(raw_days: str | int | None, now: datetime | None = None) -> Window:
    """The report's trend window: the last `days` days (90 by default)."""
    now = now or datetime.now(UTC)
    try:
        days = REPORT_DAYS if raw_days is None or raw_days == "" else int(raw_days)
    except ValueError:
        raise BadRequest(BAD_REPORT_DAYS) from None
    if not 1 <= days <= MAX_REPORT_DAYS:
        raise BadRequest(BAD_REPORT_DAYS)
    return Window(now - timedelta(days=days), now)


def report_file_name(built: report.Report, environment: str | None) -> str:
    scope = "".join(ch if ch.isalnum() or ch in ".-" else "-" for ch in
                    (built.environments[0].name if environment and built.environments else "all"))
    return f"houndgraph-report-{scope.lower()}-{built.generated_at:%Y-%m-%d}.html"
