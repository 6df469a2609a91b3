"""The source kinds a clear-database request may name; the long-query lane's probe and slots (`query_slots`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from psycopg import AsyncConnection
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.models.source_kind import SourceKind
from houndgraph.query_slots import LONG_QUERY_OF_USER, LONG_QUERY_SLOT_SPACE

PROBE = "graph_query_probe"
TAKE_LONG_SLOT = (
    # The user's own lock first (CASE keeps the order), then the first free service slot; LIMIT 1 stops there.
    # With it, the backend's process id when the server runs on this host (a Unix socket or a loopback address).
    "SELECT pg_backend_pid(), coalesce(host(inet_server_addr()) IN ('127.0.0.1', '::1'), true) "
    "FROM generate_series(0, %(slots)s - 1) AS slot "
    "WHERE CASE WHEN pg_try_advisory_xact_lock(%(owner)s, %(user_space)s) "
    "THEN pg_try_advisory_xact_lock(0, %(space)s + slot) ELSE false END LIMIT 1"
)


async def active_source_kinds(session: AsyncSession) -> Sequence[SourceKind]:
    return (await session.scalars(select(SourceKind).where(SourceKind.active).order_by(SourceKind.id))).all()


def _milliseconds(seconds: float) -> int:
    return max(math.ceil(seconds * 1000), 1)  # 0 would be no limit at all


async def begin_probe(driver: AsyncConnection, seconds: float) -> None:
    """Statements from here on run under a `seconds` timeout, in a savepoint `end_failed_probe` returns to."""
    await driver.execute(f"SAVEPOINT {PROBE}; SET LOCAL statement_timeout = {_milliseconds(seconds)}")


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


async def take_long_slot(driver: AsyncConnection, owner: int, slots: int) -> LongSlot | None:
    """The user's long-query turn and one of the service's `slots`, until the transaction ends; None when either
    is held elsewhere (any process of the service)."""
    cursor = await driver.execute(TAKE_LONG_SLOT, {"slots": slots, "owner": owner, "user_space": LONG_QUERY_OF_USER,
                                                   "space": LONG_QUERY_SLOT_SPACE})
    row = await cursor.fetchone()
    return LongSlot(row[0], row[1]) if row is not None else None
