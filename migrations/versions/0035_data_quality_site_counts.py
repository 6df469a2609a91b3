"""data_quality_site_counts: the AD data-quality rows count sites, site servers and site subnets

SharpHound v2.17 collects a forest's sites (BloodHound 9.x ingests them), and the reference's AD data-quality
rows carry `sites`, `siteservers` and `sitesubnets` beside the other object counts. Rows written before this
revision count none.

Revision ID: 0035
Revises: 0033
"""

import sqlalchemy as sa
from alembic import op

revision = "0035"
down_revision = "0033"
branch_labels = None
depends_on = None

TABLES = ("ad_data_quality_stats", "ad_data_quality_aggregations")
COUNTERS = ("sites", "siteservers", "sitesubnets")


def upgrade() -> None:
    for table in TABLES:
        for counter in COUNTERS:
            op.add_column(table, sa.Column(counter, sa.BigInteger(), nullable=False, server_default="0"))


def downgrade() -> None:
    for table in TABLES:
        for counter in COUNTERS:
            op.drop_column(table, counter)
