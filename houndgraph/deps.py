"""Request-scoped dependencies with readable aliases: `SessionDep`, `SettingsDep`, `DatabaseDep`.

Dependencies that do not wait are written `async` all the same: FastAPI runs a plain function in its
thread pool, a hand-over to another thread and back on every request."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.db import Database
from houndgraph.deadline import RequestDeadline
from houndgraph.record_writer import WRITER_KEY
from houndgraph.settings import Settings


async def get_database(request: Request) -> Database:
    return request.app.state.database


async def get_settings_dep(request: Request) -> Settings:
    return request.app.state.settings


def request_deadline(request: Request) -> RequestDeadline | None:
    return getattr(request.state, "deadline", None)


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    """The request's transaction: committed when the handler returns, rolled back when it raises.
    All its statements together end by the request's deadline (middleware.py)."""
    database: Database = request.app.state.database
    async with database.session(request_deadline(request)) as session:
        session.info[WRITER_KEY] = request.app.state.record_writer
        yield session


DatabaseDep = Annotated[Database, Depends(get_database)]
SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
# "function" scope: the commit happens before the response is sent, so a failed commit is reported.
SessionDep = Annotated[AsyncSession, Depends(get_session, scope="function")]
