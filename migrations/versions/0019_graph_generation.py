"""graph generation: a counter of graph writes, so a re-analysis of an unchanged graph skips its rules

Every statement that writes `node` or `edge` (insert, update, delete, truncate), outside analysis itself,
draws the next value of the `graph_generation` sequence. Analysis records the generation its derived edges
were computed at (`analysis_state`) and, when the generation has not moved since, keeps them instead of
deriving them again (houndgraph/analysis/generation.py). Statement-level, so an ingest batch costs one
`nextval`, whatever its size; a sequence, so writers never wait on each other for it, and a rolled-back
write still counts (a needless re-analysis, never a missed one). Analysis marks its own writes with the
session setting `houndgraph.analysis`.

Revision ID: 0019
Revises: 0018
"""

from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE SEQUENCE graph_generation")
    op.execute(
        """
        CREATE FUNCTION graph_generation_next() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF current_setting('houndgraph.analysis', true) IS DISTINCT FROM 'on' THEN
                PERFORM nextval('graph_generation');
            END IF;
            RETURN NULL;
        END
        $$
        """
    )
    for table in ("node", "edge"):
        op.execute(
            f"""
            CREATE TRIGGER {table}_generation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {table}
            FOR EACH STATEMENT EXECUTE FUNCTION graph_generation_next()
            """
        )
    op.execute(
        """
        CREATE TABLE analysis_state (
            id integer PRIMARY KEY CHECK (id = 1),
            generation bigint NOT NULL,
            fingerprint text NOT NULL,
            analysed_at timestamptz NOT NULL
        )
        """
    )


def downgrade() -> None:
    op.execute("DROP TABLE analysis_state")
    for table in ("node", "edge"):
        op.execute(f"DROP TRIGGER {table}_generation ON {table}")
    op.execute("DROP FUNCTION graph_generation_next()")
    op.execute("DROP SEQUENCE graph_generation")
