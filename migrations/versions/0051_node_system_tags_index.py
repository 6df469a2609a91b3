"""node_system_tags_index: a trigram index over the nodes' system tags, for the searches that start or end at a zone

The pre-built searches pick their ends by tag: `t.system_tags CONTAINS 'admin_tier_0'`, `o.system_tags CONTAINS
'owned'`, `g.system_tags = 'admin_tier_0'`. Cypher translates these to `(properties->>'system_tags') LIKE $1` (or
`= $1`) with `jsonb_typeof(properties->'system_tags') = 'string'`, which without an index read every node's properties:
13 ms of each such search on the 100k-node benchmark graph, for the hundred nodes a zone holds. Only tagged nodes are
in the index (the query's type test is its predicate), so it stays the size of the zones and an untagged node's
write does not touch it.

Revision ID: 0051
Revises: 0050
"""

from alembic import op

revision = "0051"
down_revision = "0050"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE INDEX node_system_tags_trgm_idx ON node USING gin ((properties->>'system_tags') gin_trgm_ops) "
               "WHERE jsonb_typeof(properties->'system_tags') = 'string'")


def downgrade() -> None:
    op.execute("DROP INDEX node_system_tags_trgm_idx")
