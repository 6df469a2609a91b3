"""login throttle: failures remember the client address, so an attacker is slowed without locking the owner out

Each failure is counted per (address, account) and per address; a correct password from an address
with no failures on that account always gets in.

Revision ID: 0014
Revises: 0013
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("login_failures", sa.Column("client_address", sa.String(64), nullable=False, server_default=""))
    op.create_index("login_failures_address_time_idx", "login_failures", ["client_address", "failed_at"])
    op.create_index("login_failures_username_time_idx", "login_failures", ["username", "failed_at"])


def downgrade() -> None:
    op.drop_index("login_failures_username_time_idx", "login_failures")
    op.drop_index("login_failures_address_time_idx", "login_failures")
    op.drop_column("login_failures", "client_address")
