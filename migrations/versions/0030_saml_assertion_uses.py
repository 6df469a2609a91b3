"""SAML assertions that signed someone in, kept until they expire, so that a replayed one is refused

Revision ID: 0030
Revises: 0028
"""

from alembic import op

revision = "0030"
down_revision = "0028"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE TABLE saml_assertion_uses (assertion_id text PRIMARY KEY, expires_at timestamptz NOT NULL)")
    op.execute("CREATE INDEX ix_saml_assertion_uses_expires_at ON saml_assertion_uses (expires_at)")


def downgrade() -> None:
    op.execute("DROP TABLE saml_assertion_uses")
