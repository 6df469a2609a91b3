"""saved queries with their sharing, SSO providers with their SAML settings, users linked to a provider

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def _timestamps() -> list[sa.Column]:
    return [
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "saved_queries",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("query", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        *_timestamps(),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_saved_queries_user_id_users"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_saved_queries")),
        sa.UniqueConstraint("user_id", "name", name=op.f("uq_saved_queries_user_id")),
    )
    op.create_index(op.f("ix_saved_queries_user_id"), "saved_queries", ["user_id"])

    op.create_table(
        "saved_queries_permissions",
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("query_id", sa.BigInteger(), nullable=False),
        sa.Column("shared_to_user_id", sa.Uuid(), nullable=True),
        sa.Column("public", sa.Boolean(), nullable=False),
        *_timestamps(),
        sa.CheckConstraint("public = (shared_to_user_id IS NULL)",
                           name=op.f("ck_saved_queries_permissions_share_or_public")),
        sa.ForeignKeyConstraint(["query_id"], ["saved_queries.id"],
                                name=op.f("fk_saved_queries_permissions_query_id_saved_queries"), ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["shared_to_user_id"], ["users.id"],
                                name=op.f("fk_saved_queries_permissions_shared_to_user_id_users"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_saved_queries_permissions")),
        sa.UniqueConstraint("query_id", "shared_to_user_id", name=op.f("uq_saved_queries_permissions_query_id")),
    )
    op.create_index(op.f("ix_saved_queries_permissions_query_id"), "saved_queries_permissions", ["query_id"])
    op.create_index(op.f("ix_saved_queries_permissions_shared_to_user_id"), "saved_queries_permissions",
                    ["shared_to_user_id"])
    op.create_index("uq_saved_queries_permissions_public", "saved_queries_permissions", ["query_id"], unique=True,
                    postgresql_where=sa.text("public"))

    op.create_table(
        "sso_providers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("slug", sa.String(), nullable=False),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("config", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        *_timestamps(),
        sa.CheckConstraint("type IN ('saml', 'oidc')", name=op.f("ck_sso_providers_known_type")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sso_providers")),
        sa.UniqueConstraint("name", name=op.f("uq_sso_providers_name")),
        sa.UniqueConstraint("slug", name=op.f("uq_sso_providers_slug")),
    )
    op.create_table(
        "saml_providers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sso_provider_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("display_name", sa.String(), nullable=False),
        sa.Column("issuer_uri", sa.String(), nullable=False),
        sa.Column("single_sign_on_uri", sa.String(), nullable=False),
        sa.Column("metadata_xml", sa.LargeBinary(), nullable=False),
        sa.Column("root_uri_version", sa.SmallInteger(), nullable=False),
        sa.Column("principal_attribute_mappings", postgresql.ARRAY(sa.String()), nullable=True),
        *_timestamps(),
        sa.ForeignKeyConstraint(["sso_provider_id"], ["sso_providers.id"],
                                name=op.f("fk_saml_providers_sso_provider_id_sso_providers"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_saml_providers")),
        sa.UniqueConstraint("name", name=op.f("uq_saml_providers_name")),
        sa.UniqueConstraint("sso_provider_id", name=op.f("uq_saml_providers_sso_provider_id")),
    )

    op.add_column("users", sa.Column("sso_provider_id", sa.Integer(), nullable=True))
    op.create_foreign_key(op.f("fk_users_sso_provider_id_sso_providers"), "users", "sso_providers",
                          ["sso_provider_id"], ["id"], ondelete="SET NULL")
    op.create_index(op.f("ix_users_sso_provider_id"), "users", ["sso_provider_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_users_sso_provider_id"), table_name="users")
    op.drop_constraint(op.f("fk_users_sso_provider_id_sso_providers"), "users", type_="foreignkey")
    op.drop_column("users", "sso_provider_id")
    op.drop_table("saml_providers")
    op.drop_table("sso_providers")
    op.drop_table("saved_queries_permissions")
    op.drop_table("saved_queries")
