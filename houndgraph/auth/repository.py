"""SQL of authentication: users with their roles, secrets, sessions, tokens and login failures."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import joinedload

from houndgraph.db import on_replica
from houndgraph.models import AuthSecret, AuthToken, Client, LoginAddressPace, LoginFailure, Role, User, UserSession
from houndgraph.record_writer import write_apart


async def user_by_principal(session: AsyncSession, principal_name: str) -> User | None:
    return await session.scalar(select(User).where(func.lower(User.principal_name) == principal_name.lower()))


async def user_by_id(session: AsyncSession, user_id: uuid.UUID) -> User | None:
    """The user with its roles and their permissions, in one statement (the relationships' own loading
    takes three round trips and costs more in the ORM than the joined rows)."""
    statement = select(User).where(User.id == user_id).options(joinedload(User.roles).joinedload(Role.permissions))
    return (await session.scalars(statement)).unique().one_or_none()


async def secret_for(session: AsyncSession, user_id: uuid.UUID) -> AuthSecret | None:
    return await session.scalar(select(AuthSecret).where(AuthSecret.user_id == user_id))


async def create_session(session: AsyncSession, user_id: uuid.UUID, expires_at: datetime) -> UserSession:
    row = UserSession(user_id=user_id, expires_at=expires_at)
    session.add(row)
    await session.flush()
    return row


async def session_by_id(session: AsyncSession, session_id: int) -> UserSession | None:
    return await session.get(UserSession, session_id)


async def delete_session(session: AsyncSession, session_id: int) -> None:
    await session.execute(delete(UserSession).where(UserSession.id == session_id))


async def delete_expired_sessions(session: AsyncSession, now: datetime) -> None:
    await session.execute(delete(UserSession).where(UserSession.expires_at <= now))


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


async def touch_last_login(session: AsyncSession, user_id: uuid.UUID, now: datetime) -> None:
    await session.execute(update(User).where(User.id == user_id).values(last_login=now))


@dataclass(frozen=True, slots=True)
class RecentFailures:
    """Failed logins within the throttle window, counted three ways."""

    account_from_address: int
    from_address: int
    account: int


async def recent_failures(session: AsyncSession, username: str, address: str, since: datetime) -> RecentFailures:
    name = username.lower()
    is_account, is_address = LoginFailure.username == name, LoginFailure.client_address == address
    row = (await session.execute(
        select(func.count().filter(is_account & is_address), func.count().filter(is_address),
               func.count().filter(is_account))
        .where(LoginFailure.failed_at > since, is_account | is_address)
    )).one()
    return RecentFailures(*(value or 0 for value in row))


async def record_failure(session: AsyncSession, username: str, address: str) -> None:
    """Committed apart from the request's transaction, which is rolled back with the 401 that follows a failed
    login (the throttle would never see the failure)."""
    await write_apart(session, insert(LoginFailure).values(username=username.lower(), client_address=address))


async def clear_failures(session: AsyncSession, username: str, address: str) -> None:
    await session.execute(delete(LoginFailure).where(LoginFailure.username == username.lower(),
                                                     LoginFailure.client_address == address))


async def delete_failures_before(session: AsyncSession, before: datetime) -> None:
    await session.execute(delete(LoginFailure).where(LoginFailure.failed_at <= before))
    await session.execute(delete(LoginAddressPace).where(LoginAddressPace.next_attempt_at <= before))


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


# The second key of a graph-query slot's advisory lock (the first is the user's): "hg" and the slot's number,
# apart from every other advisory lock of the service, which all take a single 64-bit key.
QUERY_SLOT_SPACE = 0x68670000
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
