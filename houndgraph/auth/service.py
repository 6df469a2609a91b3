"""Who sent a request: the two ways it proves it (a session's JWT bearer or an HMAC signature), and the
graph-query slot a user's query takes."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import jwt
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.auth import repository
from houndgraph.auth.cache import AuthCache, BearerClaims, KnownSession, KnownToken
from houndgraph.auth.context import AuthContext
from houndgraph.auth.policy import AuthPolicy
from houndgraph.db import cache_generation, remaining_seconds
from houndgraph.errors import BadRequest, Forbidden, Unauthorized
from houndgraph.query_slots import QuerySlots
from houndgraph.settings import Settings

JWT_ALGORITHM = "HS256"
SIGNATURE_SKEW = timedelta(hours=1)
SIGNATURE_ERROR_PREFIX = "unable to validate request signature for client: "
TOKEN_AUTH_FAILED = "Token Authorization failed."


def _now() -> datetime:
    return datetime.now(UTC)


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


async def signing_token(session: AsyncSession, token_id_text: str, cache: AuthCache,
                        policy: AuthPolicy) -> tuple[uuid.UUID, KnownToken]:
    """The key of the token of a signed request and who signs with it (a user, or a collection client),
    or the reference error."""
    try:
        token_id = uuid.UUID(token_id_text)
    except ValueError:
        raise BadRequest("Token ID is malformed.") from None
    generation = cache_generation(session)
    known = cache.token(generation, token_id)
    if known is None:
        known = await _load_signing_token(session, token_id, policy)
        cache.remember_token(generation, token_id, known)
    if known.expires_at is not None and known.expires_at <= _now():
        raise Unauthorized(SIGNATURE_ERROR_PREFIX + "token expired")
    return token_id, known


async def _load_signing_token(session: AsyncSession, token_id: uuid.UUID, policy: AuthPolicy) -> KnownToken:
    token = await repository.token_by_id(session, token_id)
    # `auth.api_tokens` governs users' API keys; collection clients have no other way to sign in.
    if (token is None or token.client_id is None) and not await policy.api_tokens_enabled(session):
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
    one within milliseconds even when its account runs many at once, so a query finding none waits in line up to
    `slots.patience` seconds (within its deadline) before it is refused (`kit.slot_lines`)."""
    owner = QuerySlots.owner_key(user_id)
    if not await repository.take_query_slot(session, owner, slots.per_user):
        await _wait_for_query_slot(session, slots, owner)


async def take_query_and_search_slots(session: AsyncSession, slots: QuerySlots, user_id: uuid.UUID) -> None:
    """`take_query_slot`, then one of the service's path finding and search slots for the rest of the request. Both
    are tried in one statement; one not free is waited for in line up to `slots.patience` seconds (within the
    deadline), the user's first, or 429 (`query_slots`)."""
    owner = QuerySlots.owner_key(user_id)
    own, search = await repository.take_query_and_search_slots(session, owner, slots.per_user, slots.searches)
    if not own:
        await _wait_for_query_slot(session, slots, owner)
    if not search and not await repository.wait_for_search_slot(session, slots.searches,
                                                                min(slots.patience, remaining_seconds(session))):
        raise slots.searches_busy()


async def _wait_for_query_slot(session: AsyncSession, slots: QuerySlots, owner: int) -> None:
    if not await repository.wait_for_query_slot(session, owner, slots.per_user,
                                                min(slots.patience, remaining_seconds(session))):
        raise slots.refusal()
