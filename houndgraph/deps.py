"""Request-scoped dependencies with readable aliases: `SessionDep`, `SettingsDep`, `DatabaseDep`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.db import Database
from houndgraph.middleware import DEFAULT_WAIT_SECONDS
from houndgraph.settings import Settings


def get_database(request: Request) -> Database:
    return request.app.state.database


def get_settings_dep(request: Request) -> Settings:
    return request.app.state.settings


def wait_seconds(request: Request) -> int:
    return getattr(request.state, "wait_seconds", DEFAULT_WAIT_SECONDS)


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    """The request's transaction: committed when the handler returns, rolled back when it raises.
    Its statements are bounded by `Prefer: wait=N` (0 means no limit, as in PostgreSQL)."""
    database: Database = request.app.state.database
    async with database.session(wait_seconds(request)) as session:
        yield session


DatabaseDep = Annotated[Database, Depends(get_database)]
SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
# "function" scope: the commit happens before the response is sent, so a failed commit is reported.
SessionDep = Annotated[AsyncSession, Depends(get_session, scope="function")]
