"""edge generation: a counter of committed edge writes, read by the in-memory path projection

The path routes search a copy of the edge table held in memory (houndgraph/graph/projection). A copy is
good for a request only if no write to `edge` has committed since it was read, whoever wrote (ingest,
analysis, a zone change, Cypher, an operator's SQL). `graph_generation` (migration 0019) cannot tell: it is a
sequence, moved when the statement runs rather than when its transaction commits (a copy read between the two
would be filed under the new number without the write), and analysis does not move it.

Every statement writing `edge` marks its transaction once (a row in `edge_change`); a deferred trigger on that
row moves `edge_generation` at commit, after every other statement, and removes the row: the new value and the
writes become visible in the same commit, and a writer holds the counter's row only for the length of its
commit (migration 0020's reasoning). A rolled-back write moves nothing. `database_id` tells apart the databases
a data directory's copies could come from (a server pointed at another database keeps the same directory).

Revision ID: 0032
Revises: 0031
"""

from alembic import op

revision = "0032"
down_revision = "0031"
branch_labels = None
depends_on = None

MARKED = "houndgraph.edge_change_marked"


def upgrade() -> None:
    op.execute("CREATE TABLE edge_generation (single boolean PRIMARY KEY DEFAULT true CHECK (single), "
               "database_id uuid NOT NULL DEFAULT gen_random_uuid(), generation bigint NOT NULL DEFAULT 0)")
    op.execute("INSERT INTO edge_generation DEFAULT VALUES")
    op.execute("CREATE TABLE edge_change (transaction_id xid8 PRIMARY KEY DEFAULT pg_current_xact_id())")
    op.execute(f"""
        CREATE FUNCTION mark_edge_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF current_setting('{MARKED}', true) IS DISTINCT FROM 'on' THEN
                INSERT INTO edge_change DEFAULT VALUES ON CONFLICT DO NOTHING;
                PERFORM set_config('{MARKED}', 'on', true);
            END IF;
            RETURN NULL;
        END $$""")
    op.execute("""
        CREATE FUNCTION move_edge_generation() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE edge_generation SET generation = generation + 1;
            DELETE FROM edge_change WHERE transaction_id = NEW.transaction_id;
            RETURN NULL;
        END $$""")
    op.execute("CREATE TRIGGER edge_marks_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON edge "
               "FOR EACH STATEMENT EXECUTE FUNCTION mark_edge_change()")
    op.execute("CREATE CONSTRAINT TRIGGER edge_change_moves_generation AFTER INSERT ON edge_change "
               "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION move_edge_generation()")


def downgrade() -> None:
    op.execute("DROP TRIGGER edge_marks_change ON edge")
    op.execute("DROP TABLE edge_change")
    op.execute("DROP FUNCTION move_edge_generation()")
    op.execute("DROP FUNCTION mark_edge_change()")
    op.execute("DROP TABLE edge_generation")
