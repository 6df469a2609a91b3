"""Logins, sessions and the two ways a request proves who sent it: a JWT bearer or an HMAC signature."""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import hmac
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import NoReturn

import jwt
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.audit import service as audit_service
from houndgraph.audit.service import AuditAction, AuditedAction
from houndgraph.auth import repository
from houndgraph.auth.cache import AuthCache, BearerClaims, KnownSession, KnownToken
from houndgraph.auth.context import AuthContext
from houndgraph.auth.pace import AddressPace
from houndgraph.auth.passwords import BUSY_ADDRESS, PasswordPool, PasswordPoolBusy
from houndgraph.config import service as config_service
from houndgraph.db import cache_generation, remaining_seconds
from houndgraph.deps import RequestSessions
from houndgraph.errors import BadRequest, Forbidden, NotFound, ServiceError, TooManyRequests, Unauthorized
from houndgraph.query_slots import QuerySlots
from houndgraph.settings import Settings
from houndgraph.user import mfa
from houndgraph.user.schemas import UserView

JWT_ALGORITHM = "HS256"
SIGNATURE_SKEW = timedelta(hours=1)
SIGNATURE_ERROR_PREFIX = "unable to validate request signature for client: "
TOKEN_AUTH_FAILED = "Token Authorization failed."


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
        paced = TooManyRequests("too many failed login attempts from this address; try again shortly",
                                headers={"Retry-After": str(wait)})
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


def _bearer_claims(settings: Settings, token: str, cache: AuthCache) -> BearerClaims:
    claims = cache.bearer_claims(token)
    if claims is None:
        try:
            decoded = jwt.decode(token, settings.signing_key(), algorithms=[JWT_ALGORITHM],
                                 options={"require": ["exp", "sub", "sid"]})
            claims = BearerClaims(int(decoded["sid"]), uuid.UUID(str(decoded["sub"])), int(decoded["exp"]))
        except (jwt.PyJWTError, ValueError, TypeError):
            raise Unauthorized(TOKEN_AUTH_FAILED) from None
        cache.remember_claims(token, claims)
    elif claims.expires <= time.time():
        raise Unauthorized(TOKEN_AUTH_FAILED)  # as jwt.decode would now say
    return claims


async def authenticate_bearer(session: AsyncSession, settings: Settings, token: str,
                              cache: AuthCache) -> AuthContext:
    claims = _bearer_claims(settings, token, cache)
    session_id, user_id = claims.session_id, claims.user_id
    generation = cache_generation(session)
    known = cache.session(generation, session_id)
    if known is None:
        row = await repository.session_by_id(session, session_id)
        if row is None or row.user_id != user_id:
            raise Unauthorized(TOKEN_AUTH_FAILED)
        user = await repository.user_by_id(session, user_id)
        if user is None or user.is_disabled:
            raise Unauthorized(TOKEN_AUTH_FAILED)
        known = KnownSession(user_id, row.expires_at, AuthContext.for_user(user, session_id=session_id))
        cache.remember_session(generation, session_id, known)
    if known.user_id != user_id or known.expires_at <= _now():
        raise Unauthorized(TOKEN_AUTH_FAILED)
    return known.context


async def self_view(session: AsyncSession, user_id: uuid.UUID, cache: AuthCache) -> UserView:
    """The caller as `/self` shows it; read once per cache generation (any change of the user moves it)."""
    generation, key = cache_generation(session), ("self", user_id)
    view: UserView | None = cache.answer(generation, key)
    if view is None:
        user = await repository.user_by_id(session, user_id)
        if user is None:
            raise NotFound()
        view = UserView.of(user)
        cache.remember_answer(generation, key, view)
    return view


@dataclass(frozen=True, slots=True)
class SignedRequest:
    """What a signature covers: method, request URI (path and query as received), date and body digest
    state. The body is hashed incrementally by the caller through `digest_for`."""

    token_id: str
    request_date: str | None
    signature: str | None


def parse_request_date(raw: str | None) -> datetime:
    if not raw:
        raise BadRequest("no request date header")
    try:
        parsed = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError as error:
        raise BadRequest(f"malformed request date: {error}") from None
    if parsed.tzinfo is None:
        raise BadRequest("malformed request date: no time zone offset")
    return parsed


def parse_signature(raw: str | None) -> bytes:
    if not raw:
        raise BadRequest("no signature header")
    try:
        return base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError) as error:
        raise BadRequest(f"malformed signature header: {error}") from None


def signature_hasher(key: str, method: str, request_uri: str, request_date: datetime) -> hmac.HMAC:
    """The HMAC-SHA256 chain of the reference: key → method+URI → date cut to the hour → body.
    Feed the body into the returned object with `update`, then compare its digest."""
    first = hmac.new(key.encode(), f"{method}{request_uri}".encode(), hashlib.sha256).digest()
    second = hmac.new(first, request_date.strftime("%Y-%m-%dT%H").encode(), hashlib.sha256).digest()
    return hmac.new(second, digestmod=hashlib.sha256)


async def signing_token(session: AsyncSession, token_id_text: str, cache: AuthCache) -> tuple[uuid.UUID, KnownToken]:
    """The key of the token of a signed request and who signs with it (a user, or a collection client),
    or the reference error."""
    try:
        token_id = uuid.UUID(token_id_text)
    except ValueError:
        raise BadRequest("Token ID is malformed.") from None
    generation = cache_generation(session)
    known = cache.token(generation, token_id)
    if known is None:
        known = await _load_signing_token(session, token_id)
        cache.remember_token(generation, token_id, known)
    if known.expires_at is not None and known.expires_at <= _now():
        raise Unauthorized(SIGNATURE_ERROR_PREFIX + "token expired")
    return token_id, known


async def _load_signing_token(session: AsyncSession, token_id: uuid.UUID) -> KnownToken:
    token = await repository.token_by_id(session, token_id)
    # `auth.api_tokens` governs users' API keys; collection clients have no other way to sign in.
    if (token is None or token.client_id is None) and not await config_service.api_tokens_enabled(session):
        raise Unauthorized(SIGNATURE_ERROR_PREFIX + "use of API keys has been disabled")
    if token is None:
        raise Unauthorized(SIGNATURE_ERROR_PREFIX + "token not found")
    if token.client_id is not None:
        client = await repository.live_client(session, token.client_id)
        if client is None:
            raise Unauthorized(SIGNATURE_ERROR_PREFIX + "token not found")
        return KnownToken(token.key, AuthContext.for_client(client, token_id=token.id))
    user = await repository.user_by_id(session, token.user_id) if token.user_id else None
    if user is None:
        raise Unauthorized(SIGNATURE_ERROR_PREFIX + "token not found")
    if user.is_disabled:
        raise Forbidden(SIGNATURE_ERROR_PREFIX + "user disabled")
    return KnownToken(token.key, AuthContext.for_user(user, token_id=token.id), token.expires_at)


def check_skew(request_date: datetime) -> None:
    drift = request_date - _now()
    if drift > SIGNATURE_SKEW:
        raise Unauthorized(SIGNATURE_ERROR_PREFIX +
                           f"signature too far ahead by {int(drift.total_seconds() // 60)} minutes")
    if -drift > SIGNATURE_SKEW:
        raise Unauthorized(SIGNATURE_ERROR_PREFIX +
                           f"signature too far behind by {int(-drift.total_seconds() // 60)} minutes")


def check_digest(hashers: Sequence[hmac.HMAC], signature: bytes) -> None:
    """Accept the signature if any of the accepted forms of the request produced it."""
    if not any([hmac.compare_digest(hasher.digest(), signature) for hasher in hashers]):
        raise Unauthorized(SIGNATURE_ERROR_PREFIX + "digest validation failed: signature digest mismatch")


async def touch_token(session: AsyncSession, token_id: uuid.UUID, cache: AuthCache) -> None:
    """Record the token's last access, at most once a second per process (`cache.TOUCH_INTERVAL_SECONDS`)."""
    if cache.should_touch(token_id):
        await repository.touch_token(session, token_id, _now())


async def take_query_slot(session: AsyncSession, slots: QuerySlots, user_id: uuid.UUID) -> None:
    """A graph-query slot of the user's for the rest of the request, or 429 (`query_slots`). A short query finds
    one within milliseconds even when its account runs many at once, so a query waits up to `slots.patience`
    seconds for one (within its deadline) before it is refused."""
    owner = QuerySlots.owner_key(user_id)
    give_up = time.monotonic() + min(slots.patience, remaining_seconds(session))
    while not await repository.take_query_slot(session, owner, slots.per_user):
        if time.monotonic() + QuerySlots.RETRY_SECONDS > give_up:
            raise slots.refusal()
        await asyncio.sleep(QuerySlots.RETRY_SECONDS)
