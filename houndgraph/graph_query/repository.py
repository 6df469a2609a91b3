"""The source kinds a clear-database request may name; the long-query lane's probe and slots (`query_slots`)."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

from psycopg import AsyncConnection
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.kit.slot_lines import wait_in_line
from houndgraph.models.source_kind import SourceKind
from houndgraph.query_slots import LONG_QUERY_OF_USER, LONG_QUERY_SLOT_SPACE

PROBE = "graph_query_probe"
# The backend's process id, and whether the server runs on this host (a Unix socket or a loopback address).
BACKEND = "SELECT pg_backend_pid(), coalesce(host(inet_server_addr()) IN ('127.0.0.1', '::1'), true)"


async def active_source_kinds(session: AsyncSession) -> Sequence[SourceKind]:
    return (await session.scalars(select(SourceKind).where(SourceKind.active).order_by(SourceKind.id))).all()


def _milliseconds(seconds: float) -> int:
    return max(math.ceil(seconds * 1000), 1)  # 0 would be no limit at all


# A request's graph read runs in its backend alone: a parallel plan's workers are processes of their own, at the
# server's CPU priority rather than the backend's (a long query's lowered one), so a reader's cross product took a
# core at full priority through its worker, beside the lowered one, and everyone else's requests waited.
ONE_PROCESS = "SET LOCAL max_parallel_workers_per_gather = 0"


async def begin_probe(driver: AsyncConnection, seconds: float) -> None:
    """Statements from here on run each in one process, under a `seconds` timeout, in a savepoint
    `end_failed_probe` returns to (which keeps the first)."""
    await driver.execute(f"{ONE_PROCESS}; SAVEPOINT {PROBE}; SET LOCAL statement_timeout = {_milliseconds(seconds)}")


async def end_probe(driver: AsyncConnection, remaining_seconds: float) -> None:
    """The probe ran to its end: the request's own timeout again for the statements that follow."""
    await driver.execute(f"RELEASE SAVEPOINT {PROBE}; SET LOCAL statement_timeout = {_milliseconds(remaining_seconds)}")


async def end_failed_probe(driver: AsyncConnection) -> None:
    """Back to the savepoint: the probe's work undone, the request's own timeout restored with it."""
    await driver.execute(f"ROLLBACK TO SAVEPOINT {PROBE}; RELEASE SAVEPOINT {PROBE}")


@dataclass(frozen=True, slots=True)
class LongSlot:
    backend_pid: int
    local_backend: bool  # the backend is a process of this host


async def wait_for_long_slot(driver: AsyncConnection, owner: int, slots: int, seconds: float) -> LongSlot | None:
    """The user's long-query turn, then one of the service's `slots`, until the transaction ends, each waited for in
    line (any process of the service) for what remains of `seconds`; None when either did not come in time (the
    transaction is then aborted)."""
    give_up = time.monotonic() + seconds
    if not (await wait_in_line(driver, owner, LONG_QUERY_OF_USER, 1, seconds)
            and await wait_in_line(driver, 0, LONG_QUERY_SLOT_SPACE, slots, give_up - time.monotonic())):
        return None
    cursor = await driver.execute(BACKEND)
    row = await cursor.fetchone()
    assert row is not None
    return LongSlot(row[0], row[1])
