"""The request's deadline: one time limit for all of a request's database work, enforced by PostgreSQL.

A request's statements run under a statement timeout of what remains of the deadline, and every
database connection the request holds is attached to its deadline: when the deadline passes, the
client disconnects or the service shuts down, the deadline cancels the backend's running statement
(and keeps cancelling until the request lets go of the connection), so no statement outlives the
request. Python work between statements (path searches) asks `expired()`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import psycopg

log = logging.getLogger(__name__)

# While a cancelled request still holds a connection, its backend is cancelled again this often, so a
# statement started after the first cancel (the request's error handling, say) cannot run on.
RECANCEL_SECONDS = 0.5
CANCEL_TIMEOUT_SECONDS = 5.0


class RequestDeadline:
    """Seconds a request may work for; create it on the event loop that serves the request.

    The clock starts with `start()`, once the request has arrived: a client slowly sending a large
    upload does not use up the time of the work that follows it."""

    def __init__(self, seconds: float, *, started: bool = True) -> None:
        self.seconds = seconds
        self.expires_at = time.monotonic() + seconds
        self.cancelled = False
        self._connections: set[psycopg.AsyncConnection[Any]] = set()
        self._loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None
        self._canceller: asyncio.Task[None] | None = None
        self._closed = False
        if started:
            self.start()

    def start(self) -> None:
        if self._timer is None and not self.cancelled and not self._closed:
            self.expires_at = time.monotonic() + self.seconds
            self._timer = self._loop.call_later(self.seconds, self.cancel)

    def remaining(self) -> float:
        if self._timer is None:
            return self.seconds
        return max(self.expires_at - time.monotonic(), 0.0)

    def expired(self) -> bool:
        return self.cancelled or (self._timer is not None and time.monotonic() >= self.expires_at)

    def attach(self, connection: psycopg.AsyncConnection[Any]) -> None:
        self._connections.add(connection)
        if self.cancelled:
            self._start_cancelling()

    def detach(self, connection: psycopg.AsyncConnection[Any]) -> None:
        self._connections.discard(connection)

    def cancel(self) -> None:
        """Stop the request's database work now (deadline passed, client gone, or shutdown)."""
        self.cancelled = True
        self._start_cancelling()

    def close(self) -> None:
        """The request is over: no more timers, nothing left to cancel."""
        if self._timer is not None:
            self._timer.cancel()
        self._closed = True
        self._connections.clear()

    def _start_cancelling(self) -> None:
        if self._connections and (self._canceller is None or self._canceller.done()):
            self._canceller = self._loop.create_task(self._cancel_until_released())

    async def _cancel_until_released(self) -> None:
        while self._connections:
            for connection in list(self._connections):
                try:
                    await connection.cancel_safe(timeout=CANCEL_TIMEOUT_SECONDS)
                except (psycopg.Error, OSError) as error:
                    log.warning("could not cancel a request's database backend: %s", error)
            await asyncio.sleep(RECANCEL_SECONDS)


class InFlight:
    """The deadlines of the requests being served, so shutdown can cancel their database work."""

    def __init__(self) -> None:
        self._deadlines: set[RequestDeadline] = set()

    def add(self, deadline: RequestDeadline) -> None:
        self._deadlines.add(deadline)

    def discard(self, deadline: RequestDeadline) -> None:
        self._deadlines.discard(deadline)

    def cancel_all(self) -> int:
        deadlines = list(self._deadlines)
        for deadline in deadlines:
            deadline.cancel()
        return len(deadlines)
