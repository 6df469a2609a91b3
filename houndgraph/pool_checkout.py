"""Checking out a pooled connection: one the server dropped while it sat idle, or one a request marked for
discarding, is closed instead of handed out (`refuse_dropped`, listened for by `db.Database`'s engines)."""

from __future__ import annotations

import logging
import select
from typing import Any

import psycopg
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.pool import ConnectionPoolEntry

log = logging.getLogger(__name__)


def dropped(connection: psycopg.AsyncConnection[Any]) -> bool:
    """Whether the server has dropped an idle connection, told without a round trip. An idle connection has
    nothing to read: a server that ends a backend (shutdown, restart, `pg_terminate_backend`) sends it an
    error and closes the socket, which makes it readable. Anything readable counts: the rare harmless
    message (a parameter the server reports anew) only costs a new connection."""
    if connection.closed or connection.broken:
        return True
    try:
        poller = select.poll()
        poller.register(connection.fileno(), select.POLLIN)
        return bool(poller.poll(0))
    except (psycopg.Error, OSError, ValueError):
        return True


# A pooled connection marked so is closed at its next checkout (`discard_after_use`).
DISCARD_KEY = "houndgraph.discard"


async def discard_after_use(session: AsyncSession) -> None:
    """The session's pooled connection is closed instead of being reused: its backend was changed for good (a CPU
    priority the service could lower but not restore)."""
    (await session.connection()).info[DISCARD_KEY] = True


def refuse_dropped(dbapi_connection: Any, record: ConnectionPoolEntry, proxy: Any) -> None:
    """Pool checkout: a connection the server dropped, or one marked for discarding, is closed, and the pool
    hands out another (or opens one), so the request never sees it."""
    if record.info.pop(DISCARD_KEY, False):
        raise DisconnectionError("a connection marked to be discarded")
    driver = record.driver_connection
    if isinstance(driver, psycopg.AsyncConnection) and dropped(driver):
        log.info("a pooled database connection was dropped by the server: replaced")
        raise DisconnectionError("the server dropped the connection")
