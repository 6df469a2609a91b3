"""Records that must outlive the request that made them (audit entries of refusals and intents, failed logins),
written by one task on a connection of its own.

A request that is refused rolls its transaction back, so these records cannot ride in it; opening a second
pooled connection for each of them let a login flood deadlock the pool (each request held one connection and
waited for two more). Here a request hands its record over and waits for the commit, never for the pool: the
writer takes what is queued, writes it in one transaction (a flood's records go in batches) and answers each.
One writer per process, created by the composition root."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from sqlalchemy import URL, Executable
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, create_async_engine

log = logging.getLogger(__name__)

WRITER_KEY = "houndgraph.record_writer"  # where a request's session carries the process's writer
BATCH_LIMIT = 500


@dataclass
class _Pending:
    statement: Executable
    done: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class RecordWriter:
    """Writes queued statements, in order, in batches, on an engine with one connection nobody else uses."""

    def __init__(self, url: str | URL) -> None:
        self._engine: AsyncEngine = create_async_engine(url, pool_size=1, max_overflow=0, pool_pre_ping=True)
        self._queue: asyncio.Queue[_Pending] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    async def write(self, statement: Executable) -> None:
        """Queue `statement`; returns once it is committed (raises what writing it raised)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="record-writer")
        pending = _Pending(statement)
        self._queue.put_nowait(pending)
        await asyncio.shield(pending.done)

    async def _run(self) -> None:
        while True:
            batch = [await self._queue.get()]
            while len(batch) < BATCH_LIMIT and not self._queue.empty():
                batch.append(self._queue.get_nowait())
            await self._write(batch)

    async def _write(self, batch: list[_Pending]) -> None:
        try:
            async with self._engine.begin() as connection:
                for pending in batch:
                    await connection.execute(pending.statement)
        except Exception as error:  # noqa: BLE001 - reported to each waiting request
            if len(batch) > 1:
                # One bad record must not lose the others: each alone, to learn which.
                for pending in batch:
                    await self._write([pending])
                return
            log.warning("a record could not be written: %s", type(error).__name__)
            _settle(batch[0], error)
            return
        for pending in batch:
            _settle(pending, None)

    async def close(self) -> None:
        """Write what is queued, then stop."""
        if self._task is not None:
            while not self._queue.empty():
                batch = [self._queue.get_nowait() for _ in range(min(self._queue.qsize(), BATCH_LIMIT))]
                await self._write(batch)
            self._task.cancel()
        await self._engine.dispose()


def _settle(pending: _Pending, error: Exception | None) -> None:
    if pending.done.done():
        return
    if error is None:
        pending.done.set_result(None)
    else:
        pending.done.set_exception(error)


def writer_of(session: AsyncSession) -> RecordWriter | None:
    return session.info.get(WRITER_KEY)


async def write_apart(session: AsyncSession, statement: Executable) -> None:
    """Commit `statement` apart from the session's transaction: through the process's writer when the session
    is a request's, else (the command line, a background job) in a transaction of its own."""
    writer = writer_of(session)
    if writer is not None:
        await writer.write(statement)
        return
    engine = session.bind
    assert isinstance(engine, AsyncEngine), "sessions are bound to the async engine"
    async with engine.begin() as connection:
        await connection.execute(statement)
