"""Request-scoped dependencies with readable aliases: `SessionDep`, `SettingsDep`, `DatabaseDep`.

Dependencies that do not wait are written `async` all the same: FastAPI runs a plain function in its
thread pool, a hand-over to another thread and back on every request."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.db import Database, on_replica
from houndgraph.deadline import RequestDeadline
from houndgraph.record_writer import WRITER_KEY
from houndgraph.settings import Settings


async def get_database(request: Request) -> Database:
    return request.app.state.database


async def get_settings_dep(request: Request) -> Settings:
    return request.app.state.settings


def request_deadline(request: Request) -> RequestDeadline | None:
    return getattr(request.state, "deadline", None)


# Set by the route (`routing.HoundRoute`) for a request that only reads the graph: the read replica may serve it.
GRAPH_READ_STATE = "graph_read"
# Set here when the read replica serves the request's session.
ON_REPLICA_STATE = "on_replica"


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    """The request's transaction: committed when the handler returns, rolled back when it raises.
    All its statements together end by the request's deadline (middleware.py)."""
    database: Database = request.app.state.database
    graph_read = bool(getattr(request.state, GRAPH_READ_STATE, False))
    async with database.session(request_deadline(request), graph_read=graph_read) as session:
        setattr(request.state, ON_REPLICA_STATE, on_replica(session))
        session.info[WRITER_KEY] = request.app.state.record_writer
        yield session


class RequestSessions:
    """Sessions a handler opens one at a time, for a request that waits on something else between its database
    work (an identity provider's answer): no connection is held while it waits."""

    def __init__(self, request: Request) -> None:
        self._request = request

    @asynccontextmanager
    async def open(self) -> AsyncIterator[AsyncSession]:
        database: Database = self._request.app.state.database
        async with database.session(request_deadline(self._request)) as session:
            session.info[WRITER_KEY] = self._request.app.state.record_writer
            yield session


async def get_sessions(request: Request) -> RequestSessions:
    return RequestSessions(request)


DatabaseDep = Annotated[Database, Depends(get_database)]
SessionsDep = Annotated[RequestSessions, Depends(get_sessions)]
SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
# "function" scope: the commit happens before the response is sent, so a failed commit is reported.
SessionDep = Annotated[AsyncSession, Depends(get_session, scope="function")]
