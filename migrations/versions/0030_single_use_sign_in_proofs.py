"""Sign-in proofs used once: SAML assertions that signed someone in (kept until they expire) and the time step
of each user's last accepted one-time code, so that a replayed assertion or a code seen twice is refused

Revision ID: 0030
Revises: 0029
"""

from alembic import op

revision = "0030"
down_revision = "0029"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE TABLE saml_assertion_uses (assertion_id text PRIMARY KEY, expires_at timestamptz NOT NULL)")
    op.execute("CREATE INDEX ix_saml_assertion_uses_expires_at ON saml_assertion_uses (expires_at)")
    op.execute("ALTER TABLE auth_secrets ADD COLUMN totp_last_step bigint")


def downgrade() -> None:
    op.execute("ALTER TABLE auth_secrets DROP COLUMN totp_last_step")
    op.execute("DROP TABLE saml_assertion_uses")
