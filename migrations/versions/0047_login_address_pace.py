"""login_address_pace: the next moment each paced address may attempt a login, shared by every process

An address past its failure limit gets one login attempt per interval (`auth.pace`). Kept in each process's memory,
the pace let an address attempt once per interval per process; in PostgreSQL one row per address holds its next
allowed attempt for the whole service, taken atomically in the login's own transaction. Unlogged: a pace is worth
nothing after a crash and needs no write-ahead log.

Revision ID: 0047
Revises: 0040
"""

from alembic import op

revision = "0047"
down_revision = "0040"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE UNLOGGED TABLE login_address_pace (client_address varchar(64) PRIMARY KEY, "
               "next_attempt_at timestamptz NOT NULL)")


def downgrade() -> None:
    op.execute("DROP TABLE login_address_pace")
