"""data quality snapshots: per AD domain / Azure tenant and per platform, written after each analysis (issue #6)

Revision ID: 0008
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0005"
branch_labels = None
depends_on = None

AD_COUNTERS = [
    "users", "groups", "computers", "ous", "containers", "gpos", "aiacas", "rootcas", "enterprisecas",
    "ntauthstores", "certtemplates", "issuancepolicies", "acls", "sessions", "relationships",
]
AZURE_COUNTERS = [
    "relationships", "users", "groups", "apps", "service_principals", "devices", "management_groups",
    "subscriptions", "resource_groups", "vms", "key_vaults", "automation_accounts", "container_registries",
    "function_apps", "logic_apps", "managed_clusters", "vm_scale_sets", "web_apps",
]


def _common(counters: list[str]) -> list[sa.Column]:
    return [
        sa.Column("id", sa.Integer(), sa.Identity(), primary_key=True),
        *[sa.Column(name, sa.BigInteger(), nullable=False, server_default="0") for name in counters],
        sa.Column("run_id", sa.Uuid(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True),
    ]


def _completeness() -> list[sa.Column]:
    return [
        sa.Column("session_completeness", sa.Float(), nullable=False, server_default="0"),
        sa.Column("local_group_completeness", sa.Float(), nullable=False, server_default="0"),
    ]


def upgrade() -> None:
    op.create_table(
        "ad_data_quality_stats",
        sa.Column("domain_sid", sa.Text(), nullable=False),
        *_common(AD_COUNTERS), *_completeness(),
    )
    op.create_index("ix_ad_data_quality_stats_domain_created", "ad_data_quality_stats", ["domain_sid", "created_at"])
    op.create_table(
        "ad_data_quality_aggregations",
        sa.Column("domains", sa.BigInteger(), nullable=False, server_default="0"),
        *_common(AD_COUNTERS), *_completeness(),
    )
    op.create_index("ix_ad_data_quality_aggregations_created", "ad_data_quality_aggregations", ["created_at"])
    op.create_table(
        "azure_data_quality_stats",
        sa.Column("tenant_id", sa.Text(), nullable=False),
        *_common(AZURE_COUNTERS),
    )
    op.create_index("ix_azure_data_quality_stats_tenant_created", "azure_data_quality_stats",
                    ["tenant_id", "created_at"])
    op.create_table(
        "azure_data_quality_aggregations",
        sa.Column("tenants", sa.BigInteger(), nullable=False, server_default="0"),
        *_common(AZURE_COUNTERS),
    )
    op.create_index("ix_azure_data_quality_aggregations_created", "azure_data_quality_aggregations", ["created_at"])


def downgrade() -> None:
    for table in ("azure_data_quality_aggregations", "azure_data_quality_stats",
                  "ad_data_quality_aggregations", "ad_data_quality_stats"):
        op.drop_table(table)
