"""cache generation moved by any change to a user: `/self` answers from the process's cache

`GET /api/v2/self` shows a user's every column but the secret (names, e-mail, EULA, last login, SSO
provider) with roles and permissions. Migration 0017 moved the generation only when a user was disabled or
renamed, the changes authentication needs; now any change of a user row moves it, so a process may keep the
user as `/self` shows it for as long as the generation holds. Logins write `last_login`, so each one moves
the generation: caches are filled again once per login, not per request.

Revision ID: 0023
Revises: 0022
"""

from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None

TRIGGER = "users_update_moves_cache_generation"  # the name migrations 0017 and 0020 gave it
AUTH_COLUMNS = "OLD.is_disabled IS DISTINCT FROM NEW.is_disabled OR OLD.principal_name IS DISTINCT FROM NEW.principal_name"


def _create(condition: str) -> None:
    op.execute(f"DROP TRIGGER {TRIGGER} ON users")
    op.execute(f"CREATE CONSTRAINT TRIGGER {TRIGGER} AFTER UPDATE ON users DEFERRABLE INITIALLY DEFERRED "
               f"FOR EACH ROW WHEN ({condition}) EXECUTE FUNCTION move_cache_generation()")


def upgrade() -> None:
    _create("OLD.* IS DISTINCT FROM NEW.*")


def downgrade() -> None:
    _create(AUTH_COLUMNS)
