"""OpenGraph schema extensions: the node kinds (how the UI draws them), edge kinds (which ones path finding
follows), environments and relationship findings an uploaded schema declares, as BloodHound 9.x keeps them

Each kind belongs to one extension at most (its name is unique across extensions), and everything an extension
declared goes with it when it is deleted. The built-in AD and Azure extensions are written at every start from the
package's kind lists (`houndgraph/extension/builtin.py`), not here, so that they follow the lists. A custom node
kind written for an extension's node kind remembers which one; deleting the extension keeps the display setting
and forgets the link, as the reference does.

Revision ID: 0034
Revises: 0033
"""

from alembic import op

revision = "0034"
down_revision = "0033"
branch_labels = None
depends_on = None

TIMESTAMPS = "created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now()"
EXTENSION = "extension_id integer NOT NULL REFERENCES schema_extensions (id) ON DELETE CASCADE"


def upgrade() -> None:
    op.execute(f"""
        CREATE TABLE schema_extensions (
            id serial PRIMARY KEY,
            name text NOT NULL UNIQUE,
            display_name text NOT NULL,
            version text NOT NULL,
            namespace text NOT NULL UNIQUE,
            is_builtin boolean NOT NULL DEFAULT false,
            {TIMESTAMPS})""")
    op.execute(f"""
        CREATE TABLE schema_node_kinds (
            id serial PRIMARY KEY,
            {EXTENSION},
            name text NOT NULL UNIQUE,
            display_name text NOT NULL DEFAULT '',
            description text NOT NULL DEFAULT '',
            is_display_kind boolean NOT NULL DEFAULT false,
            icon text NOT NULL DEFAULT '',
            icon_color text NOT NULL DEFAULT '',
            info jsonb NOT NULL DEFAULT '[]',
            {TIMESTAMPS})""")
    op.execute(f"""
        CREATE TABLE schema_relationship_kinds (
            id serial PRIMARY KEY,
            {EXTENSION},
            name text NOT NULL UNIQUE,
            description text NOT NULL DEFAULT '',
            is_traversable boolean NOT NULL DEFAULT false,
            info jsonb NOT NULL DEFAULT '[]',
            {TIMESTAMPS})""")
    op.execute(f"""
        CREATE TABLE schema_environments (
            id serial PRIMARY KEY,
            {EXTENSION},
            environment_kind text NOT NULL UNIQUE,
            source_kind text NOT NULL,
            principal_kinds text[] NOT NULL DEFAULT '{{}}',
            {TIMESTAMPS})""")
    op.execute(f"""
        CREATE TABLE schema_relationship_findings (
            id serial PRIMARY KEY,
            {EXTENSION},
            name text NOT NULL UNIQUE,
            display_name text NOT NULL DEFAULT '',
            relationship_kind text NOT NULL,
            environment_kind text NOT NULL DEFAULT '',
            remediation jsonb NOT NULL DEFAULT '{{}}',
            {TIMESTAMPS})""")
    for table in ("schema_node_kinds", "schema_relationship_kinds", "schema_environments",
                  "schema_relationship_findings"):
        op.execute(f"CREATE INDEX ix_{table}_extension_id ON {table} (extension_id)")
    op.execute("ALTER TABLE custom_node_kinds ADD COLUMN schema_node_kind_id integer "
               "REFERENCES schema_node_kinds (id) ON DELETE SET NULL")


def downgrade() -> None:
    op.execute("ALTER TABLE custom_node_kinds DROP COLUMN schema_node_kind_id")
    for table in ("schema_relationship_findings", "schema_environments", "schema_relationship_kinds",
                  "schema_node_kinds", "schema_extensions"):
        op.execute(f"DROP TABLE {table}")
