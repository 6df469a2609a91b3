"""object id indexes: two b-trees in place of the trigram index, a third of a node write's cost

The trigram index on `properties->>'objectid'` (migration 0006) served `objectid ENDS WITH '-512'` and
the search's object id prefix. A security identifier is some 45 characters, nearly all of them shared
by every object of a domain, so each node write added some 45 entries to posting lists that hold the
whole domain: measured on the 2-core machine, 75,000 computer records upserted in 6.3 s with it and
3.4 s without it, and updating a placeholder into a full record paid it again.

Two b-trees answer the same questions for one entry each:
- the unique index becomes `text_pattern_ops`, which serves equality (the upserts' conflict target and
  every look-up by object id) and also a `LIKE 'prefix%'`, which the database's default collation
  (C.UTF-8, not "C") keeps a plain b-tree from serving;
- `reverse(objectid)`, also `text_pattern_ops`, serves a suffix: Cypher's `ENDS WITH` on objectid is
  translated to a prefix of the reversed text.
`CONTAINS` on an object id, which BloodHound's queries do not use, is now a scan.

Revision ID: 0022
Revises: 0021
"""

from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE UNIQUE INDEX node_objectid_pattern_key ON node ((properties->>'objectid') text_pattern_ops)")
    op.execute("DROP INDEX node_objectid_key")
    op.execute("ALTER INDEX node_objectid_pattern_key RENAME TO node_objectid_key")
    op.execute("CREATE INDEX node_objectid_reverse_idx ON node (reverse(properties->>'objectid') text_pattern_ops)")
    op.execute("DROP INDEX node_objectid_trgm_idx")


def downgrade() -> None:
    op.execute(
        "CREATE INDEX node_objectid_trgm_idx ON node USING gin ((properties->>'objectid') gin_trgm_ops)"
    )
    op.execute("DROP INDEX node_objectid_reverse_idx")
    op.execute("CREATE UNIQUE INDEX node_objectid_default_key ON node ((properties->>'objectid'))")
    op.execute("DROP INDEX node_objectid_key")
    op.execute("ALTER INDEX node_objectid_default_key RENAME TO node_objectid_key")
