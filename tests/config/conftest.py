"""Configuration tests change shared rows: every test here gets the parameters and flags it found back."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import TypeVar

import httpx
import pytest
from psycopg.types.json import Jsonb
from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine
from sqlalchemy.pool import NullPool

from houndgraph.auth.permissions import ROLE_READ_ONLY
from houndgraph.db import Database
from tests.factories import bearer, insert_user

T = TypeVar("T")


@pytest.fixture(autouse=True)
def restore_configuration(database: Database) -> Iterator[None]:
    with database.connect_raw() as conn:
        parameters = conn.execute("SELECT key, name, description, value FROM parameters").fetchall()
        flags = conn.execute("SELECT key, enabled FROM feature_flags").fetchall()
    yield
    with database.connect_raw() as conn, conn.transaction():
        conn.execute("DELETE FROM parameters WHERE NOT (key = ANY(%s))", ([row[0] for row in parameters],))
        for key, name, description, value in parameters:
            conn.execute(
                "INSERT INTO parameters (key, name, description, value) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, name, description, Jsonb(value)),
            )
        for key, enabled in flags:
            conn.execute("UPDATE feature_flags SET enabled = %s WHERE key = %s", (enabled, key))


def run_in_session(database: Database, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
    """Run service code against the test database, outside the server's event loop."""
    async def main() -> T:
        engine = create_async_engine(database.async_engine.url, poolclass=NullPool)
        try:
            async with AsyncSession(engine) as session:
                return await work(session)
        finally:
            await engine.dispose()

    return asyncio.run(main())


@pytest.fixture
def read_only(client: httpx.Client, database: Database) -> Iterator[httpx.Client]:
    """A client logged in as a fresh Read-Only user (created with SQL: the users API is another domain)."""
    user = insert_user(database, ROLE_READ_ONLY)
    client.headers.update(bearer(client, user.principal_name))
    yield client
    with database.connect_raw() as conn:
        conn.execute("DELETE FROM users WHERE id = %s", (user.id,))
