"""cache generation: one counter that every change to who may do what moves forward

Each worker process keeps the sessions, API tokens and permission sets it has checked in memory. A
request reads this counter in the statement that sets its deadline (no extra round trip); when the
counter moved, the process drops what it holds. Triggers move it, so every writer counts: the API, the
CLI, another worker, an operator's SQL. Moved by logouts and expired sessions removed, deleted or rekeyed
API tokens, a user disabled, renamed or given other roles, roles and permissions changed, collection
clients deleted, configuration parameters (`auth.api_tokens`) changed. Not by what every request or login
writes (a token's last access, a user's last login, a new session).

Revision ID: 0017
Revises: 0016
"""

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

# (table, events, row condition): rows are compared so that writes that change nothing cached pass.
WATCHED = [
    ("users", "UPDATE", "OLD.is_disabled IS DISTINCT FROM NEW.is_disabled "
                        "OR OLD.principal_name IS DISTINCT FROM NEW.principal_name"),
    ("users", "DELETE", None),
    ("users_roles", "INSERT OR UPDATE OR DELETE", None),
    ("roles", "UPDATE OR DELETE", None),
    ("permissions", "UPDATE OR DELETE", None),
    ("roles_permissions", "INSERT OR UPDATE OR DELETE", None),
    ("user_sessions", "UPDATE OR DELETE", None),
    ("auth_tokens", "UPDATE", "OLD.key IS DISTINCT FROM NEW.key OR OLD.user_id IS DISTINCT FROM NEW.user_id "
                              "OR OLD.client_id IS DISTINCT FROM NEW.client_id"),
    ("auth_tokens", "DELETE", None),
    ("clients", "UPDATE", "OLD.deleted_at IS DISTINCT FROM NEW.deleted_at OR OLD.name IS DISTINCT FROM NEW.name"),
    ("clients", "DELETE", None),
    ("parameters", "INSERT OR UPDATE OR DELETE", None),
]


def _trigger_name(table: str, events: str) -> str:
    return f"{table}_{events.split()[0].lower()}_moves_cache_generation"


def upgrade() -> None:
    op.execute("CREATE TABLE cache_generation (single boolean PRIMARY KEY DEFAULT true CHECK (single), "
               "generation bigint NOT NULL DEFAULT 0)")
    op.execute("INSERT INTO cache_generation DEFAULT VALUES")
    op.execute("""
        CREATE FUNCTION move_cache_generation() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE cache_generation SET generation = generation + 1;
            RETURN NULL;
        END $$""")
    for table, events, condition in WATCHED:
        when = f"WHEN ({condition}) " if condition else ""
        op.execute(f"CREATE TRIGGER {_trigger_name(table, events)} AFTER {events} ON {table} "
                   f"FOR EACH ROW {when}EXECUTE FUNCTION move_cache_generation()")


def downgrade() -> None:
    for table, events, _ in WATCHED:
        op.execute(f"DROP TRIGGER {_trigger_name(table, events)} ON {table}")
    op.execute("DROP FUNCTION move_cache_generation()")
    op.execute("DROP TABLE cache_generation")
