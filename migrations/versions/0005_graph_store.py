"""graph store: edge integrity by statement-level triggers instead of row-level foreign keys; name index

The row-level foreign keys of `edge` run three RI triggers per inserted edge (each an index probe
and a KEY SHARE lock on the referenced row). Measured on the 2-core machine, 48,647 edges upserted
from a staged batch: 1,515 ms with the keys, of which the three triggers took 787 ms (start 239,
end 309, kind 239); about 730 ms without them. For a 100,000-object collection (~1M edges) that is
~16 s of a 30 s budget. The store only inserts edges by joining staged object ids to existing
nodes, under one writer lock, so the insert-side check protects nothing it does not already
guarantee; the delete side (`ON DELETE CASCADE`) is kept, as statement-level triggers that remove
the edges of deleted nodes in one set-based statement, and a TRUNCATE of `node` empties `edge`.

`node ((properties->>'name'))` serves OpenGraph `match_by: name` edge ends and the Cypher lookups
by name (`MATCH (u:User {name: $name})`) that BloodHound users write all day; the trigram index
answers equality too, but through a bitmap recheck of every candidate.

Revision ID: 0005
Revises: 0007
"""

from alembic import op

revision = "0005"
# 0006 and 0007 were merged first and took 0004 as their parent; this one follows them.
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE edge DROP CONSTRAINT IF EXISTS edge_start_id_fkey")
    op.execute("ALTER TABLE edge DROP CONSTRAINT IF EXISTS edge_end_id_fkey")
    op.execute("ALTER TABLE edge DROP CONSTRAINT IF EXISTS edge_kind_id_fkey")
    op.execute(
        """
        CREATE FUNCTION node_delete_edges() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM edge WHERE start_id IN (SELECT id FROM deleted_node);
            DELETE FROM edge WHERE end_id IN (SELECT id FROM deleted_node);
            RETURN NULL;
        END
        $$
        """
    )
    op.execute(
        """
        CREATE TRIGGER node_delete_edges AFTER DELETE ON node
        REFERENCING OLD TABLE AS deleted_node
        FOR EACH STATEMENT EXECUTE FUNCTION node_delete_edges()
        """
    )
    op.execute(
        """
        CREATE FUNCTION node_truncate_edges() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            -- DELETE, not TRUNCATE: the usual `TRUNCATE edge, node` already holds `edge` open here,
            -- and then finds nothing left to delete.
            DELETE FROM edge;
            RETURN NULL;
        END
        $$
        """
    )
    op.execute(
        """
        CREATE TRIGGER node_truncate_edges AFTER TRUNCATE ON node
        FOR EACH STATEMENT EXECUTE FUNCTION node_truncate_edges()
        """
    )
    op.execute("CREATE INDEX node_name_idx ON node ((properties->>'name'))")


def downgrade() -> None:
    op.execute("DROP INDEX node_name_idx")
    op.execute("DROP TRIGGER node_truncate_edges ON node")
    op.execute("DROP FUNCTION node_truncate_edges()")
    op.execute("DROP TRIGGER node_delete_edges ON node")
    op.execute("DROP FUNCTION node_delete_edges()")
    op.execute("DELETE FROM edge WHERE start_id NOT IN (SELECT id FROM node) OR end_id NOT IN (SELECT id FROM node)")
    op.execute("ALTER TABLE edge ADD FOREIGN KEY (start_id) REFERENCES node (id) ON DELETE CASCADE")
    op.execute("ALTER TABLE edge ADD FOREIGN KEY (end_id) REFERENCES node (id) ON DELETE CASCADE")
    op.execute("ALTER TABLE edge ADD FOREIGN KEY (kind_id) REFERENCES kind (id)")
