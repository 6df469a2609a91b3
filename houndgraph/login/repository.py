"""SQL of signing in: users by name, their secrets, sessions and the failed logins the throttle counts."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.models import AuthSecret, LoginAddressPace, LoginFailure, User, UserSession
from houndgraph.record_writer import write_apart


async def user_by_principal(session: AsyncSession, principal_name: str) -> User | None:
    return await session.scalar(select(User).where(func.lower(User.principal_name) == principal_name.lower()))


async def secret_for(session: AsyncSession, user_id: uuid.UUID) -> AuthSecret | None:
    return await session.scalar(select(AuthSecret).where(AuthSecret.user_id == user_id))


async def create_session(session: AsyncSession, user_id: uuid.UUID, expires_at: datetime) -> UserSession:
    row = UserSession(user_id=user_id, expires_at=expires_at)
    session.add(row)
    await session.flush()
    return row


async def delete_session(session: AsyncSession, session_id: int) -> None:
    await session.execute(delete(UserSession).where(UserSession.id == session_id))


async def delete_expired_sessions(session: AsyncSession, now: datetime) -> None:
    await session.execute(delete(UserSession).where(UserSession.expires_at <= now))


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
