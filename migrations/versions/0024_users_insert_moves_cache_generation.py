"""cache generation moved by a user added: the minimal user list answers from the process's cache

Migrations 0017, 0020 and 0023 move the cache generation on any change or removal of a user, but not on a new
one: nothing cached then depended on the users that exist. The minimal user list (`GET
/api/v2/bloodhound-users-minimal`) is now kept per generation too, so a user added must move it, in the same
deferred trigger at commit as the others.

Revision ID: 0024
Revises: 0023
"""

from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

TRIGGER = "users_insert_moves_cache_generation"


def upgrade() -> None:
    op.execute(f"CREATE CONSTRAINT TRIGGER {TRIGGER} AFTER INSERT ON users DEFERRABLE INITIALLY DEFERRED "
               "FOR EACH ROW EXECUTE FUNCTION move_cache_generation()")


def downgrade() -> None:
    op.execute(f"DROP TRIGGER {TRIGGER} ON users")
