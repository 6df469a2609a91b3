"""findings_found_at: the time of the last analysis that recorded findings, kept once instead of on every row

Every finding unresolved after an analysis was found by it, so the time a finding was last found (its `updated_at`
in the findings lists) is the later of its row's `updated_at` (written when the row was inserted, changed or
accepted) and this. A re-analysis that repeats the last run's findings then writes no finding row: rewriting the
`updated_at` of every row took 1.5-2.3 s and some 340 MB of write-ahead log at a million objects, more than the
rest of such a run together.

Revision ID: 0050
Revises: 0049
"""

from alembic import op

revision = "0050"
down_revision = "0049"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE analysis_state ADD COLUMN findings_found_at timestamptz")
    # Rows written before: the last run's time, which found them all (the rows already carry it).
    op.execute("UPDATE analysis_state SET findings_found_at = analysed_at WHERE findings_inputs IS NOT NULL")


def downgrade() -> None:
    op.execute("ALTER TABLE analysis_state DROP COLUMN findings_found_at")
