"""graph views: the inbound edge index carries start_id, so inbound walks are index-only

`edge (end_id, kind_id)` becomes `edge (end_id, kind_id, start_id)`: every inbound step of the entity
panels, path finding and Cypher reads `start_id` for a given end and kind, which the old index had
to fetch from the heap, one random page per edge. Measured on the 100k-node synthetic graph of
bench/views.py (2 cores under load from other work, vacuumed, old and new index swapped in turn):
group panel with 10k members p50 195-259 ms -> 98-120 ms (its `sessions` count reads 50k
HasSession edges: ~105 ms -> ~60 ms); domain panel p50 245-275 ms -> 218-227 ms. The old index is
dropped, so ingest still maintains three edge indexes; the new one is wider (60 MB against 22 MB
for 1.2M edges) and inserting 1.2M edges into a copy of the table took 12.9-6.7 s against
13.3-5.2 s with the old one: within the noise, at worst ~1.5 s more per million edges.
`(start_id, kind_id, end_id)` already exists as the uniqueness rule and covers outbound steps.

Revision ID: 0010
Revises: 0009
"""

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE INDEX edge_end_kind_start_idx ON edge (end_id, kind_id, start_id)")
    op.execute("DROP INDEX edge_end_kind_idx")


def downgrade() -> None:
    op.execute("CREATE INDEX edge_end_kind_idx ON edge (end_id, kind_id)")
    op.execute("DROP INDEX edge_end_kind_start_idx")
