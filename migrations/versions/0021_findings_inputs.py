"""findings inputs: what else decided the last run's findings, so an unchanged re-analysis can repeat them

A re-analysis that skips its rules (0019) and leaves every zone tag as it was repeats the last run's findings
history instead of computing it again, when the findings accepted at its time are those the last run read.
`findings_inputs` is a digest of those (houndgraph/analysis/findings/repeat.py); null when the run recorded
no findings.

Revision ID: 0021
Revises: 0020
"""

from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE analysis_state ADD COLUMN findings_inputs text")


def downgrade() -> None:
    op.execute("ALTER TABLE analysis_state DROP COLUMN findings_inputs")
