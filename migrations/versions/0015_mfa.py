"""multi-factor authentication (a TOTP secret per password, and whether it is activated); OIDC providers

Revision ID: 0015
Revises: 0014
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("auth_secrets", sa.Column("totp_secret", sa.Text(), nullable=True))
    op.add_column("auth_secrets", sa.Column("totp_activated", sa.Boolean(), nullable=False,
                                            server_default=sa.false()))
    op.create_table(
        "oidc_providers",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("sso_provider_id", sa.Integer(), sa.ForeignKey("sso_providers.id", ondelete="CASCADE"),
                  nullable=False, unique=True),
        sa.Column("client_id", sa.Text(), nullable=False),
        sa.Column("issuer", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
    )


def downgrade() -> None:
    op.drop_table("oidc_providers")
    op.drop_column("auth_secrets", "totp_activated")
    op.drop_column("auth_secrets", "totp_secret")
