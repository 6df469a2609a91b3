"""ingest task times: when the datapipe began and finished reading each file

Shown by `GET /api/v2/file-upload/{id}/completed-tasks`, so an operator sees which file took the time.
Tasks finished before this revision have neither.

Revision ID: 0016
Revises: 0015
"""

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("ingest_tasks", sa.Column("start_time", sa.DateTime(timezone=True)))
    op.add_column("ingest_tasks", sa.Column("end_time", sa.DateTime(timezone=True)))


def downgrade() -> None:
    op.drop_column("ingest_tasks", "end_time")
    op.drop_column("ingest_tasks", "start_time")
