"""Graph reads on a streaming replica of the service's PostgreSQL (`HOUNDGRAPH_READ_DATABASE_URL`).

PostgreSQL's own physical replication does the copying; this module only decides, per request, whether the replica
may answer it:
- Read your writes: a request may follow a commit it has seen (its upload's analysis finished, a zone changed), made
  by any process. The primary's WAL position is read after the request arrived (`PrimaryPosition`), and the replica
  must have replayed up to it before the request's first statement (`wait_for_replay`). Whatever committed before
  the request arrived is then visible, on the replica as on the primary.
- The wait is bounded: by `max_wait_seconds` and by half of what remains of the request's deadline (the other half
  is for the primary). A replica that does not catch up in time, or cannot be reached, is passed over for
  `PASS_OVER_SECONDS`: those requests go to the primary at once instead of each waiting again.
- A request the replica cannot finish (it stopped, or its connection broke) is served again by the primary (the
  route handler, `routing.HoundRoute`, retries reads once).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import psycopg
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker

log = logging.getLogger(__name__)

# After the replica failed or fell behind, reads go to the primary for this long before it is tried again.
PASS_OVER_SECONDS = 5.0
# The first look at the replica's replay position is immediate; later looks back off up to this.
LONGEST_POLL_SECONDS = 0.05

# True on the primary itself (a read URL naming the primary needs no wait), or once the standby has replayed `lsn`.
REPLAYED = "SELECT coalesce(pg_last_wal_replay_lsn() >= %s::pg_lsn, NOT pg_is_in_recovery())"
# Every commit acknowledged before this is read lies at or before it (a commit is acknowledged after it is written).
PRIMARY_POSITION = "SELECT pg_current_wal_lsn()::text"


class ReplicaUnavailable(Exception):
    """The replica cannot serve this request (unreachable, or behind past the wait): the primary serves it."""


class PrimaryPosition:
    """The primary's WAL position, read on a connection of its own at or after a given moment. Requests arriving
    together share one read: a request takes the answer of a read that began after it arrived, so at most one
    read is in flight and a busy process reads about once per round trip, not once per request."""

    def __init__(self, conninfo: str) -> None:
        self._conninfo = conninfo
        self._connection: psycopg.AsyncConnection[Any] | None = None
        self._latest: tuple[float, str] | None = None  # (when the read began, what it read)
        self._reading: tuple[float, asyncio.Future[str]] | None = None

    async def since(self, moment: float) -> str:
        """A position the primary had at some time after `moment` (`time.monotonic()`)."""
        while True:
            if self._latest is not None and self._latest[0] >= moment:
                return self._latest[1]
            if self._reading is not None and self._reading[0] >= moment:
                return await asyncio.shield(self._reading[1])
            if self._reading is not None:
                # A read begun before `moment` does not vouch for it; wait for it, then read again.
                await asyncio.wait([self._reading[1]])
                continue
            return await self._read()

    async def _read(self) -> str:
        began = time.monotonic()
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._reading = (began, future)
        try:
            position = await self._query()
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved here: the waiters re-raise it
            raise
        finally:
            self._reading = None
        self._latest = (began, position)
        future.set_result(position)
        return position

    async def _query(self) -> str:
        if self._connection is None or self._connection.closed or self._connection.broken:
            self._connection = await psycopg.AsyncConnection.connect(self._conninfo, autocommit=True)
        try:
            cursor = await self._connection.execute(PRIMARY_POSITION)
            row = await cursor.fetchone()
        except psycopg.Error:
            await self.close()
            raise
        assert row is not None
        return str(row[0])

    async def close(self) -> None:
        if self._connection is not None:
            await self._connection.close()
        self._connection = None


async def wait_for_replay(connection: psycopg.AsyncConnection[Any], position: str, seconds: float) -> bool:
    """Whether the server behind `connection` has replayed the WAL up to `position`, waiting up to `seconds`."""
    give_up_at = time.monotonic() + seconds
    pause = 0.001
    while True:
        cursor = await connection.execute(REPLAYED, (position,))
        row = await cursor.fetchone()
        if row is not None and row[0]:
            return True
        if time.monotonic() + pause > give_up_at:
            return False
        await asyncio.sleep(pause)
        pause = min(pause * 2, LONGEST_POLL_SECONDS)


class ReadReplica:
    """The replica's engine and what this process knows of its health; created once by `Database.open`."""

    def __init__(self, engine: AsyncEngine, primary_conninfo: str, max_wait_seconds: float) -> None:
        self.engine = engine
        self.sessionmaker = async_sessionmaker(engine, expire_on_commit=False)
        self.position = PrimaryPosition(primary_conninfo)
        self.max_wait_seconds = max_wait_seconds
        self._passed_over_until = 0.0

    def usable(self) -> bool:
        return time.monotonic() >= self._passed_over_until

    def pass_over(self, reason: str) -> None:
        """Send reads to the primary for a while."""
        if self.usable():
            log.warning("read replica passed over for %.0f s: %s", PASS_OVER_SECONDS, reason)
        self._passed_over_until = time.monotonic() + PASS_OVER_SECONDS

    def wait_budget(self, remaining_seconds: float) -> float:
        return min(self.max_wait_seconds, remaining_seconds / 2)

    async def dispose(self) -> None:
        await self.position.close()
        await self.engine.dispose()

