"""attack-path findings and posture: findings per environment, their acceptance, per-run counts (issue #17)

`attack_path_findings`: one row per finding (a finding type, the environment whose Tier Zero it
concerns, and the principal, plus the target and edge for a relationship finding), kept across runs
by `principal_hash`: a run updates the rows it finds again, inserts new ones, and marks the rest
resolved (`deleted_at`) so an acceptance survives a finding that disappears and comes back.
`attack_path_risk_counts`: per run, environment and finding type, the counts the sparkline draws.
`attack_path_posture`: per run and environment, exposure, Tier Zero size and the critical count.
The finding types themselves are a catalogue in code (`houndgraph.analysis.findings.finding_types`).

Revision ID: 0012
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def _timestamps() -> list[sa.Column]:
    return [
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True),
    ]


def upgrade() -> None:
    op.create_table(
        "attack_path_findings",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column("finding", sa.Text(), nullable=False),
        sa.Column("domain_sid", sa.Text(), nullable=False),
        sa.Column("principal_hash", sa.Text(), nullable=False),
        sa.Column("principal", sa.Text(), nullable=False),
        sa.Column("principal_kind", sa.Text(), nullable=False),
        sa.Column("principal_props", JSONB(), nullable=False, server_default="{}"),
        sa.Column("target", sa.Text(), nullable=True),
        sa.Column("target_kind", sa.Text(), nullable=True),
        sa.Column("target_props", JSONB(), nullable=True),
        sa.Column("rel_kind", sa.Text(), nullable=True),
        sa.Column("rel_props", JSONB(), nullable=True),
        sa.Column("edge_id", sa.BigInteger(), nullable=True),
        sa.Column("impact_count", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("impact_percentage", sa.Float(), nullable=False, server_default="0"),
        sa.Column("accepted_until", sa.DateTime(timezone=True), nullable=True),
        *_timestamps(),
        sa.UniqueConstraint("domain_sid", "finding", "principal_hash", name="uq_attack_path_findings_key"),
    )
    op.create_index("ix_attack_path_findings_domain_finding", "attack_path_findings", ["domain_sid", "finding"],
                    postgresql_where=sa.text("deleted_at IS NULL"))
    op.create_table(
        "attack_path_risk_counts",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column("run_id", sa.Uuid(), nullable=False),
        sa.Column("domain_sid", sa.Text(), nullable=False),
        sa.Column("finding", sa.Text(), nullable=False),
        sa.Column("finding_count", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("impacted_asset_count", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("composite_risk", sa.Float(), nullable=False, server_default="0"),
        *_timestamps(),
    )
    op.create_index("ix_attack_path_risk_counts_domain_finding_created", "attack_path_risk_counts",
                    ["domain_sid", "finding", "created_at"])
    op.create_table(
        "attack_path_posture",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column("run_id", sa.Uuid(), nullable=False),
        sa.Column("domain_sid", sa.Text(), nullable=False),
        sa.Column("exposure_index", sa.Float(), nullable=False, server_default="0"),
        sa.Column("exposed_count", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("principal_count", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("tier_zero_count", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("critical_risk_count", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("finding_count", sa.BigInteger(), nullable=False, server_default="0"),
        *_timestamps(),
    )
    op.create_index("ix_attack_path_posture_domain_created", "attack_path_posture", ["domain_sid", "created_at"])


def downgrade() -> None:
    for table in ("attack_path_posture", "attack_path_risk_counts", "attack_path_findings"):
        op.drop_table(table)
