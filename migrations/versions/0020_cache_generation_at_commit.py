"""cache generation moved at commit: two transactions changing auth data no longer deadlock on its row

Migration 0017's triggers moved the cache generation in the middle of a transaction: the counter row stayed
locked from the first auth change to the commit, while the transaction went on locking other rows. Two such
transactions could each hold a row the other waited for (one the counter, the other a user, say), and
PostgreSQL aborted one of them. Now each change only marks its transaction, and the counter moves once, in a
deferred trigger at commit, after every other statement of the transaction: a writer holding the counter
waits for nothing more, so others wait for it at most for the length of a commit, and never in a cycle.

Still a row, not a sequence: the new value and the change become visible in the same commit, so a request
that reads the new generation also reads the changed rows (a sequence moves before the commit, and a reader
could cache the old rows under the new number).

Revision ID: 0020
Revises: 0019
"""

from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

# The triggers of migration 0017: (table, events, row condition), names kept.
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

# Set for the rest of the transaction once the counter has moved: the deferred triggers of the other
# changed rows then do nothing.
MOVED = "houndgraph.cache_generation_moved"


def _trigger_name(table: str, events: str) -> str:
    return f"{table}_{events.split()[0].lower()}_moves_cache_generation"


def _create_triggers(constraint: str, timing: str) -> None:
    for table, events, condition in WATCHED:
        when = f"WHEN ({condition}) " if condition else ""
        op.execute(f"CREATE {constraint}TRIGGER {_trigger_name(table, events)} AFTER {events} ON {table} "
                   f"{timing}FOR EACH ROW {when}EXECUTE FUNCTION move_cache_generation()")


def _drop_triggers() -> None:
    for table, events, _ in WATCHED:
        op.execute(f"DROP TRIGGER {_trigger_name(table, events)} ON {table}")


def upgrade() -> None:
    _drop_triggers()
    op.execute(f"""
        CREATE OR REPLACE FUNCTION move_cache_generation() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF current_setting('{MOVED}', true) IS DISTINCT FROM 'on' THEN
                UPDATE cache_generation SET generation = generation + 1;
                PERFORM set_config('{MOVED}', 'on', true);
            END IF;
            RETURN NULL;
        END $$""")
    _create_triggers("CONSTRAINT ", "DEFERRABLE INITIALLY DEFERRED ")


def downgrade() -> None:
    _drop_triggers()
    op.execute("""
        CREATE OR REPLACE FUNCTION move_cache_generation() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE cache_generation SET generation = generation + 1;
            RETURN NULL;
        END $$""")
    _create_triggers("", "")
