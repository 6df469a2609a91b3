"""Wire shapes of findings as the SDK reads them (`model.relationship-finding`, `model.list-finding`,
`model.risk-counts`, `model.risk-posture-stat`), and the acceptance request."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from houndgraph.analysis.findings.finding_types import FindingType, severity
from houndgraph.kit.nullable import ZERO_TIME, SqlNullTime
from houndgraph.models import AttackPathFinding, AttackPathPosture, AttackPathRiskCount


def _accepted(finding: AttackPathFinding, now: datetime) -> bool:
    return finding.accepted_until is not None and finding.accepted_until > now


class _Row(BaseModel):
    id: int
    created_at: datetime
    updated_at: datetime
    deleted_at: SqlNullTime = SqlNullTime()  # model.Basic's bare sql.NullTime

    @staticmethod
    def row_fields(row: AttackPathFinding | AttackPathRiskCount | AttackPathPosture) -> dict[str, Any]:
        return {"id": row.id, "created_at": row.created_at, "updated_at": row.updated_at,
                "deleted_at": SqlNullTime.of(row.deleted_at)}


class _Finding(_Row):
    Finding: str
    DomainSID: str
    Accepted: bool
    ImpactCount: int
    ImpactPercentage: float
    Severity: str


class RelationshipFinding(_Finding):
    FromPrincipal: str
    ToPrincipal: str
    FromPrincipalProps: dict[str, Any]
    FromPrincipalKind: str
    ToPrincipalProps: dict[str, Any]
    ToPrincipalKind: str
    RelProps: dict[str, Any]
    ComboGraphRelationID: int | None  # null.Int64: the plain value or null
    PrincipalHash: str
    AcceptedUntil: datetime
    # The same figures as Impact*: the principals exposed through the finding's source.
    ExposureCount: int
    ExposurePercentage: float


class ListFinding(_Finding):
    Principal: str
    PrincipalKind: str
    Props: dict[str, Any]
    accepted_until: datetime


def _last_change(finding: AttackPathFinding) -> datetime:
    """When the finding was last found, accepted or changed (`attack_path.listing.UPDATED_AT`)."""
    found = finding.last_found_at
    return finding.updated_at if found is None else max(finding.updated_at, found)


def finding_view(finding: AttackPathFinding, now: datetime) -> RelationshipFinding | ListFinding:
    common: dict[str, Any] = {
        **_Row.row_fields(finding), "updated_at": _last_change(finding), "Finding": finding.finding,
        "DomainSID": finding.domain_sid, "Accepted": _accepted(finding, now), "ImpactCount": finding.impact_count,
        "ImpactPercentage": finding.impact_percentage, "Severity": severity(finding.impact_percentage),
    }
    accepted_until = finding.accepted_until or ZERO_TIME
    if finding.target is None:
        return ListFinding(**common, Principal=finding.principal, PrincipalKind=finding.principal_kind,
                           Props=finding.principal_props, accepted_until=accepted_until)
    return RelationshipFinding(
        **common, FromPrincipal=finding.principal, ToPrincipal=finding.target,
        FromPrincipalProps=finding.principal_props, FromPrincipalKind=finding.principal_kind,
        ToPrincipalProps=finding.target_props or {}, ToPrincipalKind=finding.target_kind or "",
        RelProps=finding.rel_props or {}, ComboGraphRelationID=finding.edge_id,
        PrincipalHash=finding.principal_hash, AcceptedUntil=accepted_until, ExposureCount=finding.impact_count,
        ExposurePercentage=finding.impact_percentage,
    )


class RiskCounts(_Row):
    CompositeRisk: float
    FindingCount: int
    ImpactedAssetCount: int
    DomainSID: str
    Finding: str

    @classmethod
    def of(cls, row: AttackPathRiskCount) -> RiskCounts:
        return cls(**_Row.row_fields(row), CompositeRisk=row.composite_risk,
                   FindingCount=row.finding_count, ImpactedAssetCount=row.impacted_asset_count,
                   DomainSID=row.domain_sid, Finding=row.finding)


class RiskPostureStat(_Row):
    domain_sid: str
    exposure_index: float
    tier_zero_count: int
    critical_risk_count: int
    # Ours: the figures behind exposure_index, and the open findings of the run.
    exposed_count: int
    principal_count: int
    finding_count: int

    @classmethod
    def of(cls, row: AttackPathPosture) -> RiskPostureStat:
        return cls(**_Row.row_fields(row), domain_sid=row.domain_sid,
                   exposure_index=row.exposure_index, tier_zero_count=row.tier_zero_count,
                   critical_risk_count=row.critical_risk_count, exposed_count=row.exposed_count,
                   principal_count=row.principal_count, finding_count=row.finding_count)


class AttackPathType(BaseModel):
    """One finding type with its explanation (served beside the SDK's list of names)."""

    name: str
    title: str
    family: str
    shape: str
    platform: str
    what: str
    why: str
    remediation: str
    references: list[str]

    @classmethod
    def of(cls, finding: FindingType) -> AttackPathType:
        return cls(name=finding.name, title=finding.title, family=finding.family.value, shape=finding.shape.value,
                   platform=finding.platform.value, what=finding.what, why=finding.why,
                   remediation=finding.remediation, references=list(finding.references))


class AttackPathTypes(BaseModel):
    data: list[str]
    types: list[AttackPathType]


class AcceptanceRequest(BaseModel):
    risk_type: str | None = None
    accept_until: datetime | None = None
    accepted: bool = Field(default=True)
    # Ours: why the risk is accepted, kept in the audit log beside who accepted it.
    reason: str = Field(default="", max_length=1000)


DEFAULT_LIMIT = 100
DEFAULT_WINDOW_DAYS = 30


class Sparkline(BaseModel):
    start: datetime
    end: datetime
    data: list[RiskCounts]


# --- the CSV export (the reference's columns, from its documented examples) ----------------------------
CSV = "text/csv"
RELATIONSHIP_CSV_COLUMNS = (
    "id", "finding_type", "exposure_count", "exposure_percentage", "impact_count", "impact_percentage", "domain_sid",
    "from_principal_name", "from_principal", "from_principal_kind", "to_principal_name", "to_principal",
    "to_principal_kind", "combo_graph_relation_id", "domain", "accepted", "accepted_until", "principals_hash",
    "created_at", "updated_at", "is_inherited",
)
LIST_CSV_COLUMNS = ("id", "finding_type", "impact_count", "impact_percentage", "domain", "domain_sid",
                    "principal_name", "principal_kind", "principal", "accepted", "accepted_until", "created_at",
                    "updated_at")


def _time(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def csv_record(view: RelationshipFinding | ListFinding) -> dict[str, object]:
    """One CSV row; a list finding in a relationship table fills the `from_` columns."""
    common: dict[str, object] = {
        "id": view.id, "finding_type": view.Finding, "impact_count": view.ImpactCount,
        "impact_percentage": round(view.ImpactPercentage, 4), "domain_sid": view.DomainSID,
        "accepted": str(view.Accepted).lower(), "created_at": _time(view.created_at),
        "updated_at": _time(view.updated_at),
    }
    if isinstance(view, ListFinding):
        return {**common, "domain": view.Props.get("domain", ""), "principal_name": view.Props.get("name", ""),
                "principal_kind": view.PrincipalKind, "principal": view.Principal,
                "from_principal_name": view.Props.get("name", ""), "from_principal": view.Principal,
                "from_principal_kind": view.PrincipalKind, "accepted_until": _time(view.accepted_until)}
    inherited = view.RelProps.get("isinherited")
    return {**common, "exposure_count": view.ExposureCount, "exposure_percentage": round(view.ExposurePercentage, 4),
            "from_principal_name": view.FromPrincipalProps.get("name", ""), "from_principal": view.FromPrincipal,
            "from_principal_kind": view.FromPrincipalKind, "to_principal_name": view.ToPrincipalProps.get("name", ""),
            "to_principal": view.ToPrincipal, "to_principal_kind": view.ToPrincipalKind,
            "combo_graph_relation_id": view.ComboGraphRelationID or 0,
            "domain": view.ToPrincipalProps.get("domain", ""),
            "accepted_until": _time(view.AcceptedUntil), "principals_hash": view.PrincipalHash,
            "is_inherited": "" if inherited is None else ("Yes" if inherited else "No")}


def csv_columns(views: list[RelationshipFinding | ListFinding]) -> tuple[str, ...]:
    """List columns when every finding is a list finding, relationship columns otherwise."""
    if views and all(isinstance(view, ListFinding) for view in views):
        return LIST_CSV_COLUMNS
    return RELATIONSHIP_CSV_COLUMNS
