"""multi-factor authentication: a TOTP secret per password, and whether it is activated

Revision ID: 0015
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("auth_secrets", sa.Column("totp_secret", sa.Text(), nullable=True))
    op.add_column("auth_secrets", sa.Column("totp_activated", sa.Boolean(), nullable=False,
                                            server_default=sa.false()))


def downgrade() -> None:
    op.drop_column("auth_secrets", "totp_activated")
    op.drop_column("auth_secrets", "totp_secret")
