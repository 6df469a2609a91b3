"""configuration parameters and feature flags with their defaults (issue #2)

Revision ID: 0004
Revises: 0003
"""

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
