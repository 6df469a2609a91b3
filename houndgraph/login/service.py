"""Signing in: a password login (throttled, paced, audited), the session it opens, logout, and `/self`."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import NoReturn

import jwt
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.audit import service as audit_service
from houndgraph.audit.service import AuditAction, AuditedAction
from houndgraph.auth import repository as auth_repository
from houndgraph.auth.cache import AuthCache
from houndgraph.auth.context import AuthContext
from houndgraph.auth.pace import AddressPace
from houndgraph.auth.passwords import BUSY_ADDRESS, PasswordPool, PasswordPoolBusy
from houndgraph.auth.service import JWT_ALGORITHM
from houndgraph.config import service as config_service
from houndgraph.db import cache_generation
from houndgraph.deps import RequestSessions
from houndgraph.errors import NotFound, ServiceError, TooManyRequests, Unauthorized
from houndgraph.login import mfa, repository
from houndgraph.settings import Settings
from houndgraph.user.schemas import UserView


@dataclass(frozen=True, slots=True)
class LoginAttempt:
    username: str
    secret: str
    address: str
    request_id: str | None = None
    otp: str = ""  # the one-time code of a user with multi-factor authentication


@dataclass(frozen=True, slots=True)
class LoginResult:
    user_id: uuid.UUID
    session_token: str
    auth_expired: bool


def _now() -> datetime:
    return datetime.now(UTC)


async def login(sessions: RequestSessions, settings: Settings, passwords: PasswordPool, pace: AddressPace,
                attempt: LoginAttempt) -> LoginResult:
    """Check a password login, as slow for an unknown user as for a known one.

    Throttled per (account, address) and, for addresses that failed on it, per account: a flooding client
    gets 429 while the account's owner still logs in from elsewhere. An address with many failures whatever
    the accounts is paced (`AddressPace`). Every failure is recorded for the throttle and in the audit log.
    No database connection is held while the password is checked (argon2 takes a core for tens of ms; a flood
    of logins waiting for it held the pool): the login reads in one transaction and writes in another."""
    now = _now()
    window_start = now - timedelta(seconds=settings.login_failure_window_seconds)
    if wait := pace.remembered_wait(attempt.address):
        # Refused by this process within the pace's interval: again, before any database work (`auth.pace`).
        raise _paced(wait)
    if passwords.crowded(attempt.address):  # refused before any other work: a flood's answers must come cheap
        await _refuse_busy(sessions, attempt, PasswordPoolBusy(BUSY_ADDRESS))
    async with sessions.open() as session:
        await _check_throttles(session, settings, pace, attempt, window_start)
        user = await repository.user_by_principal(session, attempt.username)
        secret_row = await repository.secret_for(session, user.id) if user is not None else None
    try:
        valid = await passwords.verify(secret_row.digest if secret_row else None, attempt.secret, attempt.address)
    except PasswordPoolBusy as busy_pool:
        await _refuse_busy(sessions, attempt, busy_pool)
    async with sessions.open() as session:
        if user is None or secret_row is None or not valid or user.is_disabled:
            await repository.record_failure(session, attempt.username, attempt.address)
            # One message for every cause, so a caller cannot probe which usernames exist.
            refused = Unauthorized("Your username or password is incorrect")
            await _audit_failure(session, attempt, "invalid credentials", refused)
            raise refused
        try:
            await mfa.check_login_code(session, user.id, attempt.otp)
        except ServiceError as error:
            # A wrong one-time code counts against the throttle like a wrong password: six digits are guessable.
            await repository.record_failure(session, attempt.username, attempt.address)
            await _audit_failure(session, attempt, "one-time password", error)
            raise
        await repository.clear_failures(session, attempt.username, attempt.address)
        await repository.delete_failures_before(session, window_start)
        token = await issue_session(session, settings, user.id, now)
        action = AuditedAction(None, AuditAction.LOGIN_ATTEMPT, {"username": attempt.username,
                                                                 "client_address": attempt.address},
                               attempt.request_id)
        await audit_service.succeeded(session, action, actor=(user.id, attempt.username))
    return LoginResult(user.id, token, secret_row.must_change or secret_row.expires_at <= now)


async def _refuse_busy(sessions: RequestSessions, attempt: LoginAttempt, cause: PasswordPoolBusy) -> NoReturn:
    busy = TooManyRequests(cause.message, headers={"Retry-After": "1"})
    async with sessions.open() as session:
        await _audit_failure(session, attempt, "busy", busy)
    raise busy from None


async def _check_throttles(session: AsyncSession, settings: Settings, pace: AddressPace, attempt: LoginAttempt,
                           window_start: datetime) -> None:
    """429 for an (account, address) or an account past its failure limit, or an address past its own that
    must wait for its next paced attempt."""
    failures = await repository.recent_failures(session, attempt.username, attempt.address, window_start)
    if (failures.account_from_address >= settings.login_max_failures
            or (failures.account >= settings.login_max_failures_per_account and failures.account_from_address)):
        throttled = _throttled(settings)
        await _audit_failure(session, attempt, "throttled", throttled)
        raise throttled
    if (failures.from_address >= settings.login_max_failures_per_address
            and (wait := await pace.wait_for(session, attempt.address))):
        paced = _paced(wait)
        await _audit_failure(session, attempt, "paced", paced)
        raise paced


async def issue_session(session: AsyncSession, settings: Settings, user_id: uuid.UUID, now: datetime) -> str:
    """A new session for a user who has proved who they are (password, or an identity provider): its JWT."""
    await repository.touch_last_login(session, user_id, now)
    await repository.delete_expired_sessions(session, now)
    expires_at = now + await config_service.session_ttl(session)
    row = await repository.create_session(session, user_id, expires_at)
    return jwt.encode(
        {"sub": str(user_id), "sid": row.id, "iat": int(now.timestamp()), "exp": int(expires_at.timestamp())},
        settings.signing_key(), algorithm=JWT_ALGORITHM,
    )


def _paced(wait: int) -> TooManyRequests:
    return TooManyRequests("too many failed login attempts from this address; try again shortly",
                           headers={"Retry-After": str(wait)})


def _throttled(settings: Settings) -> TooManyRequests:
    return TooManyRequests("too many failed login attempts; try again later",
                           headers={"Retry-After": str(settings.login_failure_window_seconds)})


async def _audit_failure(session: AsyncSession, attempt: LoginAttempt, reason: str, error: ServiceError) -> None:
    """The refusal in the audit log: the error the caller was given, and why (for the operator only)."""
    await audit_service.login_failed(session, attempt.username, {
        "client_address": attempt.address, "reason": reason, "error": error.message}, attempt.request_id)


async def logout(session: AsyncSession, context: AuthContext) -> None:
    if context.session_id is not None:
        await repository.delete_session(session, context.session_id)


async def self_view(session: AsyncSession, user_id: uuid.UUID, cache: AuthCache) -> UserView:
    """The caller as `/self` shows it; read once per cache generation (any change of the user moves it)."""
    generation, key = cache_generation(session), ("self", user_id)
    view: UserView | None = cache.answer(generation, key)
    if view is None:
        user = await auth_repository.user_by_id(session, user_id)
        if user is None:
            raise NotFound()
        view = UserView.of(user)
        cache.remember_answer(generation, key, view)
    return view
