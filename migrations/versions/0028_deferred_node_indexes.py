"""Node indexes a large ingest job builds once after its files instead of row by row

`deferred_index` holds the definition of each index the datapipe dropped for a large job
(`graph.store.bulk`). Dropping an index and recording it are one transaction, as are building it again
and forgetting it, so after a crash at any point the table names exactly the indexes that are missing,
and the next start builds them.

Revision ID: 0028
Revises: 0027
"""

from alembic import op

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE TABLE deferred_index (name text PRIMARY KEY, definition text NOT NULL)")


def downgrade() -> None:
    # Whatever is still deferred is built before the table that remembers it goes.
    op.execute("""
        DO $$
        DECLARE d record;
        BEGIN
            FOR d IN SELECT definition FROM deferred_index LOOP
                EXECUTE d.definition;
            END LOOP;
        END $$
    """)
    op.execute("DROP TABLE deferred_index")
