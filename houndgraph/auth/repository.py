"""SQL of knowing who calls: a session's user with its roles, a signing token and its owner, the graph-query slots,
an address's login pace."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import select, text, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import joinedload

from houndgraph.db import graph_connection, on_replica
from houndgraph.kit.slot_lines import wait_in_line
from houndgraph.models import AuthToken, Client, Role, User, UserSession
from houndgraph.query_slots import QUERY_SLOT_SPACE, SEARCH_SLOT_SPACE
from houndgraph.record_writer import write_apart


async def user_by_id(session: AsyncSession, user_id: uuid.UUID) -> User | None:
    """The user with its roles and their permissions, in one statement (the relationships' own loading
    takes three round trips and costs more in the ORM than the joined rows)."""
    statement = select(User).where(User.id == user_id).options(joinedload(User.roles).joinedload(Role.permissions))
    return (await session.scalars(statement)).unique().one_or_none()


async def session_by_id(session: AsyncSession, session_id: int) -> UserSession | None:
    return await session.get(UserSession, session_id)


async def token_by_id(session: AsyncSession, token_id: uuid.UUID) -> AuthToken | None:
    return await session.get(AuthToken, token_id)


async def live_client(session: AsyncSession, client_id: uuid.UUID) -> Client | None:
    return await session.scalar(select(Client).where(Client.id == client_id, Client.deleted_at.is_(None)))


async def touch_token(session: AsyncSession, token_id: uuid.UUID, now: datetime) -> None:
    statement = update(AuthToken).where(AuthToken.id == token_id).values(last_access=now)
    if on_replica(session):
        # The read replica takes no writes: the primary records it, on the process's writer.
        await write_apart(session, statement)
    else:
        await session.execute(statement)


TAKE_PACED_ATTEMPT = text(
    # A second attempt of the same address waits here for the first's transaction, then finds the time moved on.
    "INSERT INTO login_address_pace AS pace (client_address, next_attempt_at) "
    "VALUES (:address, now() + make_interval(secs => :interval)) "
    "ON CONFLICT (client_address) DO UPDATE SET next_attempt_at = excluded.next_attempt_at "
    "WHERE pace.next_attempt_at <= now() RETURNING 0"
)
PACED_WAIT = text(
    "SELECT greatest(extract(epoch FROM next_attempt_at - now()), 0) FROM login_address_pace "
    "WHERE client_address = :address"
)


async def take_paced_attempt(session: AsyncSession, address: str, interval_seconds: float) -> float:
    """0 when `address` may attempt now (its next attempt then moves `interval_seconds` on, for every process of
    the service once the transaction commits), else the seconds until it may."""
    if await session.scalar(TAKE_PACED_ATTEMPT, {"address": address, "interval": interval_seconds}) is not None:
        return 0.0
    return float(await session.scalar(PACED_WAIT, {"address": address}) or 0.0)


TAKE_QUERY_SLOT = text(
    # The LIMIT stops the scan at the first slot taken, so no more than one lock is ever held per request.
    "SELECT slot FROM generate_series(0, :slots - 1) AS slot "
    "WHERE pg_try_advisory_xact_lock(:owner, :space + slot) LIMIT 1"
)


async def take_query_slot(session: AsyncSession, owner: int, slots: int) -> bool:
    """Take one of `owner`'s `slots` graph-query slots until the session's transaction ends; False when every
    one is held (by any process of the service)."""
    taken = await session.scalar(TAKE_QUERY_SLOT, {"slots": slots, "owner": owner, "space": QUERY_SLOT_SPACE})
    return taken is not None


TAKE_QUERY_AND_SEARCH_SLOTS = text(
    # The service's slot is tried only once the caller's is taken (its One-Time Filter): a request never holds one
    # of the service's slots while it waits in line for one of its own.
    "SELECT own.slot, (SELECT slot FROM generate_series(0, :searches - 1) AS slot "
    "WHERE own.slot IS NOT NULL AND pg_try_advisory_xact_lock(0, :search_space + slot) LIMIT 1) "
    "FROM (SELECT (SELECT slot FROM generate_series(0, :slots - 1) AS slot "
    "WHERE pg_try_advisory_xact_lock(:owner, :space + slot) LIMIT 1) AS slot) AS own"
)


async def take_query_and_search_slots(session: AsyncSession, owner: int, slots: int, searches: int
                                      ) -> tuple[bool, bool]:
    """`take_query_slot`, then one of the service's `searches` path finding and search slots when that was taken,
    in one statement: whether each was taken."""
    own, search = (await session.execute(TAKE_QUERY_AND_SEARCH_SLOTS, {
        "slots": slots, "owner": owner, "space": QUERY_SLOT_SPACE, "searches": searches,
        "search_space": SEARCH_SLOT_SPACE})).one()
    return own is not None, search is not None


async def wait_for_query_slot(session: AsyncSession, owner: int, slots: int, seconds: float) -> bool:
    """Wait in line up to `seconds` for one of `owner`'s `slots` (`kit.slot_lines`); False when none came (the
    transaction is then aborted)."""
    return await wait_in_line(await graph_connection(session), owner, QUERY_SLOT_SPACE, slots, seconds)


async def wait_for_search_slot(session: AsyncSession, slots: int, seconds: float) -> bool:
    """Wait in line up to `seconds` for one of the service's `slots` path finding and search slots."""
    return await wait_in_line(await graph_connection(session), 0, SEARCH_SLOT_SPACE, slots, seconds)
