"""upload_chunks: uploaded files kept in PostgreSQL, so that the hosts of one service share no file system

An upload is stored as rows of a few MiB (`upload_chunks`, in the upload request's transaction, with its tasks);
the datapipe, on whichever host runs it, copies the file to a private folder of its own to read it, and deletes the
rows in the transaction that finishes the file's last task. `ingest_tasks.upload_id` names the upload a task reads
(null for files `houndgraph ingest` reads in place); `document_bytes` is the size of the task's JSON document, known
at upload, which the datapipe needs before it has a local copy (bulk ingest is chosen by the size of what waits).
A stored path of an upload is now relative to the uploads folder of the host that reads it.

Revision ID: 0040
Revises: 0033
"""

from alembic import op

revision = "0040"
down_revision = "0035"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE TABLE upload_chunks (upload_id uuid NOT NULL, seq integer NOT NULL, data bytea NOT NULL, "
               "PRIMARY KEY (upload_id, seq))")
    op.execute("ALTER TABLE ingest_tasks ADD COLUMN upload_id uuid, ADD COLUMN document_bytes bigint")
    op.execute("CREATE INDEX ix_ingest_tasks_upload_id ON ingest_tasks (upload_id) WHERE upload_id IS NOT NULL")


def downgrade() -> None:
    op.execute("DROP INDEX ix_ingest_tasks_upload_id")
    op.execute("ALTER TABLE ingest_tasks DROP COLUMN upload_id, DROP COLUMN document_bytes")
    op.execute("DROP TABLE upload_chunks")
