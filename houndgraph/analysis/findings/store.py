"""Writing a run's findings, per-type counts and posture; the finding rows outlive the run that found them.

A finding is keyed by (environment, type, `principal_hash`); the hash names the principal, the target
and the edge kind, so it is the same in every run. Rows found again are updated (impact, properties)
and revived if they had been resolved; new ones are inserted; rows no longer found are marked resolved
(`deleted_at`). The acceptance (`accepted_until`) stays on the row throughout. A run that repeats the last
one's findings writes no row: when a finding was last found is read from the analysis's own record
(`analysis.generation.save`).
"""

from __future__ import annotations

import base64
import hashlib
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

import psycopg

_COLUMNS = ("finding", "domain_sid", "principal_hash", "principal", "principal_kind", "principal_props", "target",
            "target_kind", "target_props", "rel_kind", "rel_props", "edge_id", "impact_count", "impact_percentage")
_STAGE = """
CREATE TEMP TABLE IF NOT EXISTS hg_findings (
    finding text, domain_sid text, principal_hash text, principal text, principal_kind text, principal_props text,
    target text, target_kind text, target_props text, rel_kind text, rel_props text, edge_id bigint,
    impact_count bigint, impact_percentage double precision
) ON COMMIT DELETE ROWS
"""
_RESOLVE = """
UPDATE attack_path_findings f SET deleted_at = %(now)s, updated_at = %(now)s
WHERE f.deleted_at IS NULL AND NOT EXISTS (
    SELECT 1 FROM hg_findings s
    WHERE s.domain_sid = f.domain_sid AND s.finding = f.finding AND s.principal_hash = f.principal_hash)
"""
_UPSERT = """
INSERT INTO attack_path_findings AS f (finding, domain_sid, principal_hash, principal, principal_kind,
    principal_props, target, target_kind, target_props, rel_kind, rel_props, edge_id, impact_count,
    impact_percentage, created_at, updated_at)
SELECT finding, domain_sid, principal_hash, principal, principal_kind, principal_props::jsonb, target, target_kind,
       target_props::jsonb, rel_kind, rel_props::jsonb, edge_id, impact_count, impact_percentage, %(now)s, %(now)s
FROM hg_findings ORDER BY domain_sid, finding, principal_hash
ON CONFLICT (domain_sid, finding, principal_hash) DO UPDATE SET
    principal = EXCLUDED.principal, principal_kind = EXCLUDED.principal_kind,
    principal_props = EXCLUDED.principal_props, target = EXCLUDED.target, target_kind = EXCLUDED.target_kind,
    target_props = EXCLUDED.target_props, rel_kind = EXCLUDED.rel_kind, rel_props = EXCLUDED.rel_props,
    edge_id = EXCLUDED.edge_id, impact_count = EXCLUDED.impact_count,
    impact_percentage = EXCLUDED.impact_percentage, updated_at = EXCLUDED.updated_at, deleted_at = NULL
"""


def principal_hash(principal: str, target: str | None, rel_kind: str | None) -> str:
    digest = hashlib.sha256(f"{principal}|{target or ''}|{rel_kind or ''}".encode()).digest()
    return base64.b64encode(digest[:8]).decode()


@dataclass(slots=True)
class FindingRow:
    finding: str
    domain_sid: str
    principal_hash: str
    principal: str
    principal_kind: str
    principal_props: str  # JSON text, as the database gives it
    target: str | None
    target_kind: str | None
    target_props: str | None
    rel_kind: str | None
    rel_props: str | None
    edge_id: int | None
    impact_count: int = 0
    impact_percentage: float = 0.0

    @property
    def key(self) -> tuple[str, str, str]:
        return self.domain_sid, self.finding, self.principal_hash


@dataclass(frozen=True, slots=True)
class RiskCount:
    domain_sid: str
    finding: str
    finding_count: int
    impacted_asset_count: int
    composite_risk: float


@dataclass(frozen=True, slots=True)
class Posture:
    domain_sid: str
    exposure_index: float
    exposed_count: int
    principal_count: int
    tier_zero_count: int
    critical_risk_count: int
    finding_count: int


# Each history table, with the columns a repeated run copies.
HISTORY_COLUMNS = {
    "attack_path_risk_counts": ["domain_sid", "finding", "finding_count", "impacted_asset_count", "composite_risk"],
    "attack_path_posture": ["domain_sid", "exposure_index", "exposed_count", "principal_count", "tier_zero_count",
                            "critical_risk_count", "finding_count"],
}


def accepted_keys(conn: psycopg.Connection, now: datetime) -> set[tuple[str, str, str]]:
    """Findings accepted at `now`, resolved ones included (an acceptance outlives a finding's absence)."""
    rows = conn.execute("SELECT domain_sid, finding, principal_hash FROM attack_path_findings "
                        "WHERE accepted_until > %s", (now,))
    return {(row[0], row[1], row[2]) for row in rows}


def write_findings(conn: psycopg.Connection, rows: Sequence[FindingRow], now: datetime) -> None:
    conn.execute(_STAGE)
    conn.execute("TRUNCATE hg_findings")
    with conn.cursor().copy(f"COPY hg_findings ({', '.join(_COLUMNS)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row((row.finding, row.domain_sid, row.principal_hash, row.principal, row.principal_kind,
                            row.principal_props, row.target, row.target_kind, row.target_props,
                            row.rel_kind, row.rel_props, row.edge_id, row.impact_count,
                            row.impact_percentage))
    conn.execute(_RESOLVE, {"now": now})
    conn.execute(_UPSERT, {"now": now})


def write_history(conn: psycopg.Connection, run_id: uuid.UUID, now: datetime, counts: Iterable[RiskCount],
                  postures: Iterable[Posture]) -> None:
    with conn.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO attack_path_risk_counts (run_id, domain_sid, finding, finding_count, impacted_asset_count,"
            " composite_risk, created_at, updated_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            [(run_id, c.domain_sid, c.finding, c.finding_count, c.impacted_asset_count, c.composite_risk, now, now)
             for c in counts],
        )
        cursor.executemany(
            "INSERT INTO attack_path_posture (run_id, domain_sid, exposure_index, exposed_count, principal_count,"
            " tier_zero_count, critical_risk_count, finding_count, created_at, updated_at)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            [(run_id, p.domain_sid, p.exposure_index, p.exposed_count, p.principal_count, p.tier_zero_count,
              p.critical_risk_count, p.finding_count, now, now) for p in postures],
        )


def repeat_history(conn: psycopg.Connection, run_id: uuid.UUID, now: datetime, previous: datetime) -> int:
    """The history rows of the run at `previous` again, in their order, under `run_id` and `now`; how many."""
    copied = 0
    for table, columns in HISTORY_COLUMNS.items():
        listed = ", ".join(columns)
        copied += conn.execute(
            f"INSERT INTO {table} ({listed}, run_id, created_at, updated_at) "
            f"SELECT {listed}, %(run)s, %(now)s, %(now)s FROM {table} "
            "WHERE created_at = %(previous)s AND deleted_at IS NULL ORDER BY id",
            {"run": run_id, "now": now, "previous": previous},
        ).rowcount
    return copied
