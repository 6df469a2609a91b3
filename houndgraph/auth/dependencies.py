"""Authentication as a dependency: `CurrentAuth` in a handler, and the permission guard the route
table attaches to every route."""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.auth import service
from houndgraph.auth.cache import AuthCache
from houndgraph.auth.context import AuthContext
from houndgraph.auth.pace import AddressPace
from houndgraph.auth.passwords import PasswordPool
from houndgraph.auth.permissions import P
from houndgraph.db import cache_generation
from houndgraph.deps import SessionDep, SettingsDep
from houndgraph.errors import NOT_AUTHENTICATED, NOT_AUTHORIZED, BadRequest, Forbidden, NotFound, Unauthorized
from houndgraph.query_slots import QuerySlots
from houndgraph.settings import Settings

T = TypeVar("T")

# Bodies of signed requests are hashed while they are spooled: in memory up to this, then on disk.
SPOOL_IN_MEMORY = 8 * 1024 * 1024


def signed_uris(request: Request, settings: Settings) -> list[str]:
    """What a signature may cover: the path and query exactly as the client sent them, and, only when
    `accept_path_only_signatures` is set, the path alone (clients that drop the query, reference issue #3098)."""
    raw_path = request.scope.get("raw_path") or request.url.path.encode()
    query = request.scope.get("query_string", b"")
    path = raw_path.decode("latin-1")
    if not query:
        return [path]
    with_query = f"{path}?{query.decode('latin-1')}"
    return [with_query, path] if settings.accept_path_only_signatures else [with_query]


def streams_body(request: Request) -> bool:
    route: Any = request.scope.get("route")
    return bool(getattr(route, "streams_body", False))


def auth_cache(request: Request) -> AuthCache:
    return request.app.state.auth_cache


async def generation_cached(request: Request, session: AsyncSession, compute: Callable[[], Awaitable[T]]) -> T:
    """The route's answer for this query string, from the process's cache while the cache generation holds,
    else `compute()`'s (kept for the next request). Only for routes that read nothing but rows whose every
    change moves the generation (auth/cache.py), and whose answer is the same for every caller allowed in."""
    cache = auth_cache(request)
    route: Any = request.scope.get("route")
    key = ("answer", request.method, getattr(route, "path", request.url.path), request.scope.get("query_string", b""))
    generation = cache_generation(session)
    found = cache.answer(generation, key)
    if found is None:
        found = await compute()
        cache.remember_answer(generation, key, found)
    return found


async def _authenticate_signature(request: Request, session: AsyncSession, settings: Settings,
                                  token_id_text: str) -> AuthContext:
    request_date = service.parse_request_date(request.headers.get("RequestDate"))
    signature = service.parse_signature(request.headers.get("Signature"))
    cache = auth_cache(request)
    token_id, token = await service.signing_token(session, token_id_text, cache, request.app.state.auth_policy)
    service.check_skew(request_date)
    hashers = [service.signature_hasher(token.key, request.method, uri, request_date)
               for uri in signed_uris(request, settings)]
    if streams_body(request):
        # Large uploads: hash while spooling, so a 1 GB body is never held in memory; the handler
        # reads the spooled copy through `kit.body.iter_body`.
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY, dir=str(settings.data_dir))
        async for chunk in request.stream():
            for hasher in hashers:
                hasher.update(chunk)
            spool.write(chunk)
        spool.seek(0)
        request.state.spooled_body = spool
    else:
        body = await request.body()
        for hasher in hashers:
            hasher.update(body)
    service.check_digest(hashers, signature)
    await service.touch_token(session, token_id, cache)
    return token.context


async def current_auth(request: Request, session: SessionDep, settings: SettingsDep) -> AuthContext:
    cached = getattr(request.state, "auth", None)
    if cached is not None:
        return cached
    header = request.headers.get("Authorization")
    if not header:
        raise Unauthorized(NOT_AUTHENTICATED)
    parts = header.split(" ")
    if len(parts) != 2:
        raise BadRequest("Expected only two components for the Authorization header.")
    scheme, credential = parts
    if scheme.lower() == "bearer":
        context = await service.authenticate_bearer(session, settings, credential, auth_cache(request))
    elif scheme.lower() == "bhesignature":
        context = await _authenticate_signature(request, session, settings, credential)
    else:
        raise BadRequest(f"Unexpected authorization scheme: {scheme}.")
    request.state.auth = context
    return context


CurrentAuth = Annotated[AuthContext, Depends(current_auth)]


async def password_pool(request: Request) -> PasswordPool:
    return request.app.state.password_pool


async def client_address(request: Request) -> str:
    """The peer's address (uvicorn puts a trusted proxy's X-Forwarded-For here; see `forwarded_allow_ips`)."""
    return request.client.host if request.client else ""


async def address_pace(request: Request) -> AddressPace:
    return request.app.state.address_pace


async def graph_query_slot(request: Request, auth: CurrentAuth, session: SessionDep) -> None:
    """One of the caller's graph-query slots, held by the request's transaction (429 when all are taken)."""
    slots: QuerySlots = request.app.state.graph_query_slots
    await service.take_query_slot(session, slots, auth.user_id)


async def graph_search_slot(request: Request, auth: CurrentAuth, session: SessionDep) -> None:
    """One of the caller's graph-query slots, then one of the service's path finding and search slots, held by the
    request's transaction (429 when none comes in time)."""
    slots: QuerySlots = request.app.state.graph_query_slots
    await service.take_query_and_search_slots(session, slots, auth.user_id)


PasswordPoolDep = Annotated[PasswordPool, Depends(password_pool)]
AddressPaceDep = Annotated[AddressPace, Depends(address_pace)]
ClientAddress = Annotated[str, Depends(client_address)]


def permission_guard(permission: P | None):
    """The dependency the route table attaches: authenticated, and holding `permission` when one is named."""

    async def guard(auth: CurrentAuth) -> None:
        # A collection client may call only the client routes (`client_guard`), whatever they need.
        if auth.is_client or (permission is not None and not auth.has(permission)):
            raise Forbidden(NOT_AUTHORIZED)

    guard.__name__ = f"require_{permission.name.lower() if permission else 'authentication'}"
    return guard


def client_or_permission_guard(permission: P):
    """The dependency of a route both a collection client and a user holding `permission` may call."""

    async def guard(auth: CurrentAuth) -> None:
        if not auth.is_client and not auth.has(permission):
            raise Forbidden(NOT_AUTHORIZED)

    guard.__name__ = f"require_client_or_{permission.name.lower()}"
    return guard


async def client_guard(auth: CurrentAuth) -> None:
    """The dependency of the client routes: signed by a collection client. Users are told there is no
    such route, as the reference answers them (upstream spec: "For users, this endpoint will return a 404")."""
    if not auth.is_client:
        raise NotFound()


async def current_client_id(auth: CurrentAuth) -> uuid.UUID:
    """The calling client's id, on the client routes (where `client_guard` already vouched for it)."""
    assert auth.client_id is not None
    return auth.client_id


CurrentClientId = Annotated[uuid.UUID, Depends(current_client_id)]
