"""Alembic environment: the connection comes from `Database.migrate()`."""

from alembic import context

from houndgraph.models import Base

target_metadata = Base.metadata
connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=target_metadata, compare_type=True)
with context.begin_transaction():
    context.run_migrations()
