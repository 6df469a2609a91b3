"""What the findings, sparkline and posture lists may be sorted and filtered by (the reference's names and
ours), and the SQL each column reads."""

from __future__ import annotations

from sqlalchemy import DateTime, func, literal_column, select, table

from houndgraph.kit.filters import (
    ID_PREDICATES,
    ORDERED_PREDICATES,
    STRING_PREDICATES,
    FilterColumn,
    as_bool,
    as_datetime,
    as_int,
)
from houndgraph.kit.query import PAGE_PARAMETERS, Column, list_columns
from houndgraph.kit.sorting import SortKey
from houndgraph.models import AttackPathFinding, AttackPathPosture, AttackPathRiskCount

F = AttackPathFinding
R = AttackPathRiskCount
P = AttackPathPosture

_TIME = FilterColumn(ORDERED_PREDICATES, as_datetime)
_NUMBER = FilterColumn(ORDERED_PREDICATES, float)
_COUNT = FilterColumn(ORDERED_PREDICATES, as_int)
_TEXT = FilterColumn(STRING_PREDICATES)
_FLAG = FilterColumn(ID_PREDICATES, as_bool)
# Query parameters read by their own dependencies: the type (plain or `eq:`/`neq:`), the acceptance
# shortcut, the time window and the reference's `Accept` parameter of the CSV export.
FINDING_PARAMETER = "finding"
ACCEPTED_PARAMETER = "filterAccepted"
WINDOW_PARAMETERS = frozenset({"from", "to"})
# Filters on the acceptance state rather than a column (`Accepted=eq:false`, as BloodHound clients send): the
# service turns them into a condition on the time of the request, so they read no column here.
ACCEPTED_FILTERS = frozenset({"Accepted", "accepted"})

# When the last analysis that recorded findings ran (`analysis.generation.save`): every unresolved finding was found
# by it, though a run that repeated the last one's findings wrote no row. A finding's `updated_at` in the lists (the
# time it was last found, accepted or changed) is the later of this and its row's.
LAST_FOUND_AT = (select(literal_column("findings_found_at", DateTime(timezone=True)))
                 .select_from(table("analysis_state")).where(literal_column("id") == 1).scalar_subquery())
UPDATED_AT = func.greatest(F.updated_at, LAST_FOUND_AT, type_=DateTime(timezone=True))

FINDINGS = list_columns(
    {
        "id": Column(F.id, _COUNT),
        "created_at": Column(F.created_at, _TIME),
        "updated_at": Column(UPDATED_AT, _TIME),
        "domain_sid": Column(F.domain_sid, _TEXT),
        # Filtered through its own parameter (`FINDING_PARAMETER`), which the service turns into filters.
        "finding": Column(F.finding),
        "Finding": Column(F.finding),
        "impact": Column(F.impact_count),
        "impact_count": Column(F.impact_count, _COUNT),
        "ImpactCount": Column(F.impact_count),
        "impact_percentage": Column(F.impact_percentage, _NUMBER),
        "ImpactPercentage": Column(F.impact_percentage),
        "exposure_percentage": Column(F.impact_percentage),
        "accepted_until": Column(F.accepted_until, _TIME),
        "AcceptedUntil": Column(F.accepted_until, _TIME),
        "principal": Column(F.principal, _TEXT),
        "Principal": Column(F.principal, _TEXT),
        "from_principal": Column(F.principal, _TEXT),
        "FromPrincipal": Column(F.principal, _TEXT),
        "to_principal": Column(F.target, _TEXT),
        "ToPrincipal": Column(F.target, _TEXT),
        "principals_hash": Column(F.principal_hash, _TEXT, sortable=False),
        **{name: Column(None, _FLAG, sortable=False) for name in sorted(ACCEPTED_FILTERS)},
    },
    default_sort=(SortKey("impact_count", descending=True), SortKey("finding")),
    also=PAGE_PARAMETERS | {FINDING_PARAMETER, ACCEPTED_PARAMETER, "Accept"},
)

FINDING_TYPES = list_columns({"finding": Column(F.finding)}, default_sort=(SortKey("finding"),),
                             also=frozenset({FINDING_PARAMETER}))

# The per-run counts behind a sparkline.
SPARKLINE = list_columns(
    {
        "CompositeRisk": Column(R.composite_risk),
        "FindingCount": Column(R.finding_count),
        "ImpactedAssetCount": Column(R.impacted_asset_count),
        "domain_sid": Column(R.domain_sid),
        "id": Column(R.id),
        "created_at": Column(R.created_at),
        "updated_at": Column(R.updated_at),
        "deleted_at": Column(R.deleted_at),
        "finding": Column(R.finding, sortable=False),  # the `finding` parameter's filters
    },
    default_sort=(SortKey("created_at"),),
    also=WINDOW_PARAMETERS | {FINDING_PARAMETER, "asset_group_tag_id"},
)

POSTURE = list_columns(
    {
        "domain_sid": Column(P.domain_sid, _TEXT),
        "exposure_index": Column(P.exposure_index, _NUMBER),
        "tier_zero_count": Column(P.tier_zero_count, _COUNT),
        "critical_risk_count": Column(P.critical_risk_count, _COUNT),
        "id": Column(P.id, _COUNT),
        "created_at": Column(P.created_at),
        "updated_at": Column(P.updated_at),
    },
    default_sort=(SortKey("created_at"),),
    also=WINDOW_PARAMETERS | PAGE_PARAMETERS,
)
