"""installed_database_code: which version of each `.sql` file of the package the database runs

The functions and triggers that run inside PostgreSQL are kept as `.sql` files beside the Python that calls
them (`houndgraph/database_code.py` lists them) and installed at every start when a file's digest, or the
schema's revision, differs from what this table recorded. Migrations before this one created the earlier
versions of those definitions; they stay as history, so that a fresh database still upgrades step by step.

Revision ID: 0033
Revises: 0032
"""

from alembic import op

revision = "0033"
down_revision = "0032"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE TABLE installed_database_code (file text PRIMARY KEY, digest text NOT NULL, "
               "revision text NOT NULL, installed_at timestamptz NOT NULL DEFAULT now())")


def downgrade() -> None:
    op.execute("DROP TABLE installed_database_code")
