"""privilege zones: asset group tags, selectors and their seeds, selected nodes, history, custom node kinds

Default rows as in the reference (reference/behaviour.md §3): the Tier Zero zone (type 1, position 1,
kind Tag_Tier_Zero) with its default selectors, and the Owned tag (type 3, kind Tag_Owned). Core
default selectors are enabled and cannot be disabled; optional ones ship disabled and may be enabled.
The list and the Cypher seeds follow the reference's own migration; the descriptions are ours.

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

SYSTEM = "SYSTEM"

# (name, enabled, allow_disable, cypher seed, description)
TIER_ZERO_SELECTORS = [
    ("Domain root object", True, False, "MATCH (n:Domain)\nRETURN n;",
     "Control of the domain object is control of the domain (DCSync and more)."),
    ("Domain Admins", True, False, "MATCH (n:Group)\nWHERE n.objectid ENDS WITH '-512'\nRETURN n;",
     "Full control of the domain's essential objects."),
    ("Enterprise Admins", True, False, "MATCH (n:Group)\nWHERE n.objectid ENDS WITH '-519'\nRETURN n;",
     "Full control of every domain of the forest."),
    ("Schema Admins", True, False, "MATCH (n:Group)\nWHERE n.objectid ENDS WITH '-518'\nRETURN n;",
     "Control of the schema, hence of the permissions of objects created later."),
    ("Administrators", True, False, "MATCH (n:Group)\nWHERE n.objectid ENDS WITH 'S-1-5-32-544'\nRETURN n;",
     "The built-in Administrators group of the domain controllers."),
    ("Backup Operators", True, False, "MATCH (n:Group)\nWHERE n.objectid ENDS WITH 'S-1-5-32-551'\nRETURN n;",
     "Backup and restore privileges on the domain controllers reach their secrets."),
    ("Administrator", True, False, "MATCH (n:User)\nWHERE n.objectid ENDS WITH '-500'\nRETURN n;",
     "The built-in Administrator account administers the domain controllers."),
    ("AdminSDHolder", True, False,
     "MATCH (n:Domain)\nMATCH (m:Container)\n"
     "WHERE m.distinguishedname = 'CN=ADMINSDHOLDER,CN=SYSTEM,' + n.distinguishedname\nRETURN m;",
     "Its permissions are stamped on every protected account and group."),
    ("Domain Controllers", True, False, "MATCH (n:Group)\nWHERE n.objectid ENDS WITH '-516'\nRETURN n;",
     "Holds replication rights; its membership keeps the domain running."),
    ("Enterprise Domain Controllers", True, False, "MATCH (n:Group)\nWHERE n.objectid ENDS WITH '-1-5-9'\nRETURN n;",
     "Holds replication rights on every domain of the forest."),
    ("Key Admins", True, False, "MATCH (n:Group)\nWHERE n.objectid ENDS WITH '-526'\nRETURN n;",
     "May write key credentials of the domain's users and computers (shadow credentials)."),
    ("Enterprise Key Admins", True, False, "MATCH (n:Group)\nWHERE n.objectid ENDS WITH '-527'\nRETURN n;",
     "May write key credentials of the forest's users and computers (shadow credentials)."),
    ("Azure tenant object", True, False, "MATCH (n:AZTenant)\nRETURN n;",
     "Control of the tenant is control of its identities, applications and subscriptions."),
    ("Global Administrator", True, False,
     "MATCH (n:AZRole)\nWHERE n.objectid STARTS WITH '62E90394-69F5-4237-9190-012177145E10@'\nRETURN n;",
     "The highest Entra ID role."),
    ("Privileged Role Administrator", True, False,
     "MATCH (n:AZRole)\nWHERE n.objectid STARTS WITH 'E8611AB8-C189-46E8-94E1-60213AB1F814@'\nRETURN n;",
     "May grant any Entra ID role, Global Administrator included."),
    ("Privileged Authentication Administrator", True, False,
     "MATCH (n:AZRole)\nWHERE n.objectid STARTS WITH '7BE44C8A-ADAF-4E2A-84D6-AB2649E08A13@'\nRETURN n;",
     "May reset the authentication methods of any principal, Global Administrators included."),
    ("Partner Tier2 Support", True, False,
     "MATCH (n:AZRole)\nWHERE n.objectid STARTS WITH 'E00E864A-17C5-4A4B-9C06-F5B95A8D5BD8@'\nRETURN n;",
     "May reset the password of any principal, Global Administrators included."),
    # Optional: shipped disabled, each may be enabled where it applies.
    ("Account Operators", False, True, "MATCH (n:Group)\nWHERE n.objectid ENDS WITH 'S-1-5-32-548'\nRETURN n;",
     "Full control of users, groups and computers not protected by AdminSDHolder."),
    ("Print Operators", False, True, "MATCH (n:Group)\nWHERE n.objectid ENDS WITH 'S-1-5-32-550'\nRETURN n;",
     "May load drivers and log on locally on the domain controllers."),
    ("Server Operators", False, True, "MATCH (n:Group)\nWHERE n.objectid ENDS WITH 'S-1-5-32-549'\nRETURN n;",
     "Administrative privileges and local logon on the domain controllers."),
    ("KRBTGT objects", False, True, "MATCH (n:User)\nWHERE n.objectid ENDS WITH '-502'\nRETURN n;",
     "Its keys sign every ticket of the domain."),
    ("Read-Only Domain Controllers", False, True,
     "MATCH (n:Computer)-[:MemberOf]->(m:Group)\nWHERE m.objectid ENDS WITH '-521'\nRETURN n;",
     "Control of an RODC object can reveal Tier Zero credentials to it."),
    ("Enterprise CA Computers", False, True, "MATCH (n:Computer)-[:HostsCAService]->(:EnterpriseCA)\nRETURN n;",
     "Administrators of an enterprise CA can issue certificates as anyone."),
    ("Exchange Trusted Subsystem", False, True,
     "MATCH (n:Group)\nWHERE n.name STARTS WITH 'EXCHANGE TRUSTED SUBSYSTEM@'\nRETURN n;",
     "May write the certificate mappings of users inheriting from the domain."),
    ("Exchange Windows Permissions", False, True,
     "MATCH (n:Group)\nWHERE n.name STARTS WITH 'EXCHANGE WINDOWS PERMISSIONS@'\nRETURN n;",
     "Takeover rights on users and groups inheriting from the domain (shared permission model)."),
    ("DNS Admins", False, True, "MATCH (n:Group)\nWHERE n.name STARTS WITH 'DNSADMINS@'\nRETURN n;",
     "Control of DNS enables relay attacks against privileged hosts."),
    ("Cert Publishers", False, True, "MATCH (n:Group)\nWHERE n.objectid ENDS WITH '-517'\nRETURN n;",
     "Full control of root and AIA CA objects trusted by the forest."),
    ("NTAuth store", False, True, "MATCH (n:NTAuthStore)\nRETURN n;",
     "Decides which CAs may issue certificates for domain authentication."),
    ("Root CA object", False, True, "MATCH (n:RootCA)\nRETURN n;",
     "Certificates for domain authentication must chain up to a trusted root CA."),
    ("AIA CA (AD object)", False, True, "MATCH (n:AIACA)\nRETURN n;",
     "Deleting it can make Tier Zero certificates lose trust."),
    ("Enterprise CA (AD object)", False, True, "MATCH (n:EnterpriseCA)\nRETURN n;",
     "May publish certificate templates, including dangerous unpublished ones."),
    ("Certificate template", False, True, "MATCH (n:CertTemplate)\nRETURN n;",
     "Control of a published template enables ESC4."),
    ("Cryptographic Operators", False, True, "MATCH (n:Group)\nWHERE n.objectid ENDS WITH 'S-1-5-32-569'\nRETURN n;",
     "Holds a local privilege on the domain controllers."),
    ("Distributed COM Users", False, True, "MATCH (n:Group)\nWHERE n.objectid ENDS WITH 'S-1-5-32-562'\nRETURN n;",
     "May launch and use DCOM objects on the domain controllers."),
    ("Performance Log Users", False, True, "MATCH (n:Group)\nWHERE n.objectid ENDS WITH 'S-1-5-32-559'\nRETURN n;",
     "May use DCOM objects on the domain controllers."),
    ("AZUREADSSOACC object", False, True,
     "MATCH (n:Computer)\nWHERE n.samaccountname = 'AZUREADSSOACC$'\nRETURN n;",
     "The Seamless SSO account can impersonate synced users in Entra ID."),
    ("Application Administrator", False, True,
     "MATCH (n:AZRole)\nWHERE n.objectid STARTS WITH '9B895D92-2CD3-44C7-9D02-A6AC2D5EA5C3@'\nRETURN n;",
     "Controls tenant apps, hence their service principals' privileges."),
    ("Knowledge Administrator", False, True,
     "MATCH (n:AZRole)\nWHERE n.objectid STARTS WITH 'B5A8DCF3-09D5-43A9-A639-8E29EF291470@'\nRETURN n;",
     "Controls non-role-assignable groups, which may hold rights over Tier Zero."),
    ("Intune Administrator", False, True,
     "MATCH (n:AZRole)\nWHERE n.objectid STARTS WITH '3A2C62DB-5318-420D-8D74-23AFFEE5D9D5@'\nRETURN n;",
     "Runs scripts on managed devices used by Tier Zero principals."),
    ("Security Administrator", False, True,
     "MATCH (n:AZRole)\nWHERE n.objectid STARTS WITH '194AE4CB-B126-40B2-BD5B-6091B380977D@'\nRETURN n;",
     "Runs scripts on managed devices and manages Conditional Access."),
]


def _audit_columns(*prefixes: str) -> list[sa.Column]:
    columns = []
    for prefix in prefixes:
        columns.append(sa.Column(f"{prefix}_at", sa.DateTime(timezone=True), nullable=True))
        columns.append(sa.Column(f"{prefix}_by", sa.Text(), nullable=True))
    return columns


def upgrade() -> None:
    op.create_table(
        "asset_group_tags",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("type", sa.Integer(), nullable=False),
        sa.Column("kind_id", sa.SmallInteger(), nullable=True),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False, server_default=""),
        *_audit_columns("created", "updated", "deleted"),
        sa.Column("position", sa.Integer(), nullable=True),
        sa.Column("require_certify", sa.Boolean(), nullable=True),
        sa.Column("analysis_enabled", sa.Boolean(), nullable=True),
        sa.Column("glyph", sa.Text(), nullable=True),
        sa.CheckConstraint("type IN (1, 2, 3, 4)", name=op.f("ck_asset_group_tags_known_type")),
        sa.ForeignKeyConstraint(["kind_id"], ["kind.id"], name=op.f("fk_asset_group_tags_kind_id_kind")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_asset_group_tags")),
    )
    # A deleted tag gives its name and glyph back.
    op.create_index("uq_asset_group_tags_name", "asset_group_tags", ["name"], unique=True,
                    postgresql_where=sa.text("deleted_at IS NULL"))
    op.create_index("uq_asset_group_tags_glyph", "asset_group_tags", ["glyph"], unique=True,
                    postgresql_where=sa.text("deleted_at IS NULL"))

    op.create_table(
        "asset_group_tag_selectors",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("asset_group_tag_id", sa.Integer(), nullable=False),
        *_audit_columns("created", "updated", "disabled"),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False, server_default=""),
        sa.Column("is_default", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("allow_disable", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("auto_certify", sa.Integer(), nullable=False, server_default="0"),
        sa.CheckConstraint("auto_certify IN (0, 1, 2)", name=op.f("ck_asset_group_tag_selectors_auto_certify")),
        sa.ForeignKeyConstraint(["asset_group_tag_id"], ["asset_group_tags.id"], ondelete="CASCADE",
                                name=op.f("fk_asset_group_tag_selectors_asset_group_tag_id_asset_group_tags")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_asset_group_tag_selectors")),
        sa.UniqueConstraint("asset_group_tag_id", "name", name=op.f("uq_asset_group_tag_selectors_asset_group_tag_id")),
    )
    op.create_index("ix_asset_group_tag_selectors_name", "asset_group_tag_selectors", ["name"])

    op.create_table(
        "asset_group_tag_selector_seeds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("selector_id", sa.Integer(), nullable=False),
        sa.Column("type", sa.Integer(), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.CheckConstraint("type IN (1, 2)", name=op.f("ck_asset_group_tag_selector_seeds_known_type")),
        sa.ForeignKeyConstraint(["selector_id"], ["asset_group_tag_selectors.id"], ondelete="CASCADE",
                                name=op.f("fk_asset_group_tag_selector_seeds_selector_id_asset_group_tag_selectors")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_asset_group_tag_selector_seeds")),
    )
    op.create_index("ix_asset_group_tag_selector_seeds_selector_id", "asset_group_tag_selector_seeds",
                    ["selector_id"])

    # The nodes each selector selected at the last analysis (no foreign key: graph nodes come and go
    # with ingest; the next analysis reconciles), with their certification and cached display fields.
    op.create_table(
        "asset_group_tag_selector_nodes",
        sa.Column("selector_id", sa.Integer(), nullable=False),
        sa.Column("node_id", sa.BigInteger(), nullable=False),
        sa.Column("certified", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("certified_by", sa.Text(), nullable=True),
        sa.Column("source", sa.Integer(), nullable=False),
        sa.Column("node_primary_kind", sa.Text(), nullable=False, server_default=""),
        sa.Column("node_environment_id", sa.Text(), nullable=False, server_default=""),
        sa.Column("node_object_id", sa.Text(), nullable=False, server_default=""),
        sa.Column("node_name", sa.Text(), nullable=False, server_default=""),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.CheckConstraint("source IN (1, 2, 3)", name=op.f("ck_asset_group_tag_selector_nodes_known_source")),
        sa.CheckConstraint("certified IN (0, 1, 2, 3)", name=op.f("ck_asset_group_tag_selector_nodes_certified")),
        sa.ForeignKeyConstraint(["selector_id"], ["asset_group_tag_selectors.id"], ondelete="CASCADE",
                                name=op.f("fk_asset_group_tag_selector_nodes_selector_id_asset_group_tag_selectors")),
        sa.PrimaryKeyConstraint("selector_id", "node_id", name=op.f("pk_asset_group_tag_selector_nodes")),
    )
    op.create_index("ix_asset_group_tag_selector_nodes_node_id", "asset_group_tag_selector_nodes", ["node_id"])

    op.create_table(
        "asset_group_history",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("email", sa.Text(), nullable=True),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("target", sa.Text(), nullable=False, server_default=""),
        sa.Column("asset_group_tag_id", sa.Integer(), nullable=False),
        sa.Column("environment_id", sa.Text(), nullable=False, server_default=""),
        sa.Column("note", sa.Text(), nullable=False, server_default=""),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.ForeignKeyConstraint(["asset_group_tag_id"], ["asset_group_tags.id"], ondelete="CASCADE",
                                name=op.f("fk_asset_group_history_asset_group_tag_id_asset_group_tags")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_asset_group_history")),
    )
    op.create_index("ix_asset_group_history_created_at", "asset_group_history", ["created_at"])

    op.create_table(
        "custom_node_kinds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind_name", sa.Text(), nullable=False),
        sa.Column("config", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_custom_node_kinds")),
        sa.UniqueConstraint("kind_name", name=op.f("uq_custom_node_kinds_kind_name")),
    )
    _default_rows()


def _default_rows() -> None:
    op.execute("INSERT INTO kind (name) VALUES ('Tag_Tier_Zero'), ('Tag_Owned') ON CONFLICT (name) DO NOTHING")
    op.execute(f"""
        INSERT INTO asset_group_tags (type, kind_id, name, description, created_at, created_by, updated_at,
                                      updated_by, position, require_certify, analysis_enabled)
        VALUES (1, (SELECT id FROM kind WHERE name = 'Tag_Tier_Zero'), 'Tier Zero', 'Tier Zero',
                now(), '{SYSTEM}', now(), '{SYSTEM}', 1, false, true),
               (3, (SELECT id FROM kind WHERE name = 'Tag_Owned'), 'Owned', 'Owned',
                now(), '{SYSTEM}', now(), '{SYSTEM}', NULL, NULL, NULL)""")
    selectors = sa.table(
        "asset_group_tag_selectors", sa.column("asset_group_tag_id"), sa.column("name"), sa.column("description"),
        sa.column("is_default"), sa.column("allow_disable"), sa.column("auto_certify"),
        sa.column("created_at"), sa.column("created_by"), sa.column("updated_at"), sa.column("updated_by"),
        sa.column("disabled_at"), sa.column("disabled_by"),
    )
    tier_zero = sa.select(sa.literal_column("id")).select_from(sa.table("asset_group_tags")).where(
        sa.literal_column("name") == "Tier Zero").scalar_subquery()
    now = sa.func.now()
    op.execute(selectors.insert().values([
        {"asset_group_tag_id": tier_zero, "name": name, "description": description, "is_default": True,
         "allow_disable": allow_disable, "auto_certify": 0, "created_at": now, "created_by": SYSTEM,
         "updated_at": now, "updated_by": SYSTEM, "disabled_at": None if enabled else now,
         "disabled_by": None if enabled else SYSTEM}
        for name, enabled, allow_disable, _, description in TIER_ZERO_SELECTORS
    ]))
    seeds = sa.table("asset_group_tag_selector_seeds", sa.column("selector_id"), sa.column("type"),
                     sa.column("value"))
    for name, _, _, cypher, _ in TIER_ZERO_SELECTORS:
        selector = sa.select(sa.literal_column("id")).select_from(sa.table("asset_group_tag_selectors")).where(
            sa.literal_column("name") == name).scalar_subquery()
        op.execute(seeds.insert().values(selector_id=selector, type=2, value=cypher))


def downgrade() -> None:
    for table in ("custom_node_kinds", "asset_group_history", "asset_group_tag_selector_nodes",
                  "asset_group_tag_selector_seeds", "asset_group_tag_selectors", "asset_group_tags"):
        op.drop_table(table)
