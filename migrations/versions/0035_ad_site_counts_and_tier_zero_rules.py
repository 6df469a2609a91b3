"""ad_site_counts_and_tier_zero_rules: AD sites in the data-quality rows and in Tier Zero

SharpHound v2.17 collects a forest's sites, and BloodHound 9.x (its migrations 20260615124500 and
20260615130000) added, with them:
* `sites`, `siteservers` and `sitesubnets` counters to the AD data-quality rows (rows written before count none);
* two default Tier Zero rules, on and certifying their seeds' members (auto_certify 2): "Sites" (GPOs linked to a
  site apply to its domain controllers; it may be turned off) and "Domain Controller Site Servers" (the server
  objects of domain controllers; it may not).

Revision ID: 0035
Revises: 0033
"""

import sqlalchemy as sa
from alembic import op

revision = "0035"
down_revision = "0034"
branch_labels = None
depends_on = None

TABLES = ("ad_data_quality_stats", "ad_data_quality_aggregations")
COUNTERS = ("sites", "siteservers", "sitesubnets")
CREATOR = "BloodHound"  # as the reference's migrations write these two rules
# (name, may be turned off, cypher seed, description)
TIER_ZERO_RULES = (
    ("Sites", True, "MATCH (n:Site) \nRETURN n;",
     "Control over an Active Directory site may allow users to compromise all assets associated with the site "
     "through the application of Group Policy Objects. Since AD Sites contain at least a Domain Controller as a "
     "Site Server, this results in the potential compromise of at least one domain in the forest. Therefore, "
     "Active Directory Site objects are Tier Zero."),
    ("Domain Controller Site Servers", False,
     "MATCH (n:SiteServer)-[:ServerIs]->(:Computer)-[:DCFor]->(:Domain)\nRETURN n;",
     "Active Directory Site Server objects that reference domain controllers are Tier Zero because control over "
     "the Site Server object may impact a domain controller and therefore the domain."),
)
TIER_ZERO = "(SELECT id FROM asset_group_tags WHERE type = 1 AND position = 1 AND deleted_at IS NULL)"


def upgrade() -> None:
    for table in TABLES:
        for counter in COUNTERS:
            op.add_column(table, sa.Column(counter, sa.BigInteger(), nullable=False, server_default="0"))
    # Bound values: a seed's `:ServerIs` would otherwise read as a bind parameter.
    insert = sa.text(
        "WITH selector AS (INSERT INTO asset_group_tag_selectors (asset_group_tag_id, name, description, "
        "is_default, allow_disable, auto_certify, created_at, created_by, updated_at, updated_by) "
        f"SELECT {TIER_ZERO}, :name, :description, true, :allow_disable, 2, now(), :creator, now(), :creator "
        f"WHERE {TIER_ZERO} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM asset_group_tag_selectors "
        f"WHERE asset_group_tag_id = {TIER_ZERO} AND name = :name) RETURNING id) "
        "INSERT INTO asset_group_tag_selector_seeds (selector_id, type, value) SELECT id, 2, :cypher FROM selector")
    for name, allow_disable, cypher, description in TIER_ZERO_RULES:
        op.execute(insert.bindparams(name=name, description=description, allow_disable=allow_disable,
                                     creator=CREATOR, cypher=cypher))


def downgrade() -> None:
    delete = sa.text("DELETE FROM asset_group_tag_selectors WHERE name = :name AND is_default "
                     "AND created_by = :creator")
    for name, _, _, _ in TIER_ZERO_RULES:
        op.execute(delete.bindparams(name=name, creator=CREATOR))
    for table in TABLES:
        for counter in COUNTERS:
            op.drop_column(table, counter)
