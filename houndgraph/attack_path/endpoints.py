"""Attack-path findings (types, findings per domain, acceptance, refresh), sparklines and posture."""

from __future__ import annotations

import csv
import io
from typing import Annotated

from fastapi import Depends, Query, Request, Response

from houndgraph.attack_path import report, service
from houndgraph.attack_path.listing import (
    ACCEPTED_PARAMETER,
    FINDING_PARAMETER,
    FINDING_TYPES,
    FINDINGS,
    POSTURE,
    SPARKLINE,
)
from houndgraph.attack_path.schemas import (
    CSV,
    DEFAULT_LIMIT,
    AcceptanceRequest,
    AttackPathType,
    AttackPathTypes,
    ListFinding,
    RelationshipFinding,
    RiskCounts,
    RiskPostureStat,
    Sparkline,
    csv_columns,
    csv_record,
)
from houndgraph.audit.dependencies import AuditFields
from houndgraph.deps import SessionDep
from houndgraph.kit.answers import TEXT, answers, answers_file, answers_nothing
from houndgraph.kit.envelopes import DataEnvelope, PageEnvelope, WindowEnvelope
from houndgraph.kit.filters import Filter
from houndgraph.kit.pagination import Page
from houndgraph.kit.params import list_query, page_query
from houndgraph.kit.query import ListQuery
from houndgraph.kit.responses import JSONResponse

FindingText = Annotated[str | None, Query(alias=FINDING_PARAMETER, description="A finding type, e.g. T0GenericAll "
                                                                                "(or eq:/neq: before it).")]
AcceptedText = Annotated[str | None, Query(alias=ACCEPTED_PARAMETER,
                                           description="accepted, unaccepted or all (the default).")]
TimeText = Annotated[str | None, Query(description="RFC 3339 time; the window defaults to the last 30 days.")]


def _findings(raw: FindingText = None) -> list[Filter]:
    return service.parse_finding(raw)


def _acceptance(raw: AcceptedText = None) -> bool | None:
    return service.parse_acceptance(raw)


def _window(start: Annotated[str | None, Query(alias="from", description="RFC 3339 time (inclusive); "
                                                "default 30 days ago.")] = None,
            end: Annotated[str | None, Query(alias="to", description="RFC 3339 time (exclusive); "
                                             "default now.")] = None) -> service.Window:
    return service.parse_window(start, end)


FindingDep = Annotated[list[Filter], Depends(_findings)]
AcceptanceDep = Annotated[bool | None, Depends(_acceptance)]
WindowDep = Annotated[service.Window, Depends(_window)]
PageDep = Annotated[Page, Depends(page_query(DEFAULT_LIMIT))]
FindingQuery = Annotated[ListQuery, Depends(list_query(FINDINGS))]
TypeQuery = Annotated[ListQuery, Depends(list_query(FINDING_TYPES))]
SparklineQuery = Annotated[ListQuery, Depends(list_query(SPARKLINE))]
PostureQuery = Annotated[ListQuery, Depends(list_query(POSTURE))]
Finding = RelationshipFinding | ListFinding
# The findings' page as JSON, or (asked for by `Accept: text/csv`) as CSV.
answers_findings = answers(PageEnvelope[list[Finding]], content={CSV: TEXT})


def _ordered(names: list[str], query: ListQuery) -> list[str]:
    # The only sortable column is the type itself.
    return sorted(names, reverse=bool(query.sort and query.sort[0].descending))


async def list_attack_path_types(findings: FindingDep, query: TypeQuery) -> AttackPathTypes:
    types = service.finding_types(findings)
    names = _ordered([finding.name for finding in types], query)
    by_name = {finding.name: finding for finding in types}
    return AttackPathTypes(data=names, types=[AttackPathType.of(by_name[name]) for name in names])


async def list_available_types(domain_id: str, findings: FindingDep, query: TypeQuery,
                               session: SessionDep) -> DataEnvelope[list[str]]:
    return DataEnvelope(data=_ordered(await service.available_types(session, domain_id, findings), query))


def _wants_csv(request: Request) -> bool:
    # The reference reads the media type from the Accept header, and documents an `Accept` query parameter.
    return CSV in request.headers.get("accept", "") or request.query_params.get("Accept") == CSV


def _page_or_csv(request: Request, rows: list[Finding], count: int, page: Page) -> Response:
    """`{count, skip, limit, data}` as JSON, or the rows as CSV (declared by `answers_findings`)."""
    if not _wants_csv(request):
        envelope = PageEnvelope[list[Finding]](count=count, skip=page.skip, limit=page.limit, data=rows)
        return JSONResponse(envelope.model_dump(mode="json"))
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=csv_columns(rows), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(csv_record(row) for row in rows)
    return Response(text.getvalue(), media_type=CSV)


@answers_findings
async def list_domain_findings(request: Request, domain_id: str, findings: FindingDep, accepted: AcceptanceDep,
                               query: FindingQuery, page: PageDep,
                               session: SessionDep) -> Response:
    """Every type of finding of the domain, largest impact first; `Accept: text/csv` exports them."""
    rows, count = await service.list_findings(session, domain_id, findings, query, accepted, page)
    return _page_or_csv(request, rows, count, page)


@answers_findings
async def list_domain_finding_details(request: Request, domain_id: str, findings: FindingDep,
                                      accepted: AcceptanceDep, query: FindingQuery, page: PageDep,
                                      session: SessionDep) -> Response:
    rows, count = await service.finding_details(session, domain_id, findings, query, accepted, page)
    return _page_or_csv(request, rows, count, page)


@answers_nothing
async def request_attack_paths(session: SessionDep) -> Response:
    await service.request_refresh(session)
    return Response(status_code=202)


async def update_acceptance(attack_path_id: int, body: AcceptanceRequest, session: SessionDep,
                            audited: AuditFields) -> DataEnvelope[Finding]:
    finding = await service.accept(session, attack_path_id, body)
    until = finding.AcceptedUntil if isinstance(finding, RelationshipFinding) else finding.accepted_until
    audited.update(finding=finding.Finding, domain_sid=finding.DomainSID, accepted=finding.Accepted,
                   accepted_until=until.isoformat() if finding.Accepted else None, reason=body.reason)
    return DataEnvelope(data=finding)


async def list_sparkline(domain_id: str, findings: FindingDep, window: WindowDep, query: SparklineQuery,
                         session: SessionDep) -> Sparkline:
    rows = await service.sparkline(session, domain_id, findings, window, query.sort)
    return Sparkline(start=window.start, end=window.end, data=[RiskCounts.of(row) for row in rows])


async def list_posture_stats(window: WindowDep, query: PostureQuery, page: PageDep,
                             session: SessionDep) -> WindowEnvelope[list[RiskPostureStat]]:
    rows, count = await service.posture(session, query, window, page)
    return WindowEnvelope(count=count, skip=page.skip, limit=page.limit, start=window.start, end=window.end,
                          data=[RiskPostureStat.of(row) for row in rows])


EnvironmentText = Annotated[str | None, Query(description="A domain SID or tenant id; every environment without it.")]
DaysText = Annotated[str | None, Query(description="The trend's window in days, 1 to 3650 (default 90).")]


@answers_file("text/html")
async def download_report(session: SessionDep, environment: EnvironmentText = None,
                          days: DaysText = None) -> Response:
    """The posture report as one self-contained HTML file (ours: the reference has none)."""
    built = await service.build_report(session, environment or None, service.report_window(days))
    name = service.report_file_name(built, environment)
    return Response(report.render(built), media_type="text/html; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})
