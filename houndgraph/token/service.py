"""Creating, listing and deleting API tokens, with the reference's ownership rules (behaviour.md §13)."""

from __future__ import annotations

import base64
import logging
import secrets
import uuid
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.auth.context import AuthContext
from houndgraph.auth.permissions import P
from houndgraph.config import service as config_service
from houndgraph.errors import BadRequest, Forbidden, NotFound
from houndgraph.kit.filters import Filter, Predicate
from houndgraph.kit.repository import add
from houndgraph.kit.sorting import SortKey
from houndgraph.models import AuthToken
from houndgraph.models.auth_token import HMAC_SHA256
from houndgraph.models.base import utcnow
from houndgraph.token import repository
from houndgraph.user import service as user_service

log = logging.getLogger(__name__)

KEY_BYTES = 40
API_TOKENS_DISABLED = "API key creation is disabled"
OTHER_USERS_TOKENS = "missing permission to create tokens for other users"
ADMIN_ONLY_USER_FILTER = "only admins are able to filter tokens by user_id"
UNKNOWN_USER = "unknown user"


def new_key() -> str:
    """Standard base64 of 40 random bytes (56 characters), as the reference makes them."""
    return base64.b64encode(secrets.token_bytes(KEY_BYTES)).decode()


async def create(session: AsyncSession, auth: AuthContext, name: str, user_id: uuid.UUID | None) -> AuthToken:
    if not await config_service.api_tokens_enabled(session):
        raise Forbidden(API_TOKENS_DISABLED)
    owner_id = user_id or auth.user_id
    if owner_id != auth.user_id:
        if not auth.has(P.AUTH_MANAGE_USERS):
            raise Forbidden(OTHER_USERS_TOKENS)
        if await user_service.find(session, owner_id) is None:
            raise BadRequest(UNKNOWN_USER)
    now, lifetime = utcnow(), await config_service.api_token_lifetime(session)
    token = AuthToken(user_id=owner_id, name=name, key=new_key(), hmac_method=HMAC_SHA256, last_access=now,
                      expires_at=now + lifetime if lifetime is not None else None)
    return await add(session, token)


def _scope_to_caller(auth: AuthContext, filters: list[Filter]) -> list[Filter]:
    """Without AuthManageUsers a caller sees only their own tokens; a `user_id` filter may only name them."""
    if auth.has(P.AUTH_MANAGE_USERS):
        return filters
    for item in filters:
        if item.column == "user_id" and (item.predicate is not Predicate.EQ or item.value != auth.user_id):
            raise Forbidden(ADMIN_ONLY_USER_FILTER)
    own = [item for item in filters if item.column != "user_id"]
    return [*own, Filter("user_id", Predicate.EQ, auth.user_id)]


async def list_tokens(session: AsyncSession, auth: AuthContext, filters: list[Filter],
                      sort: Sequence[SortKey]) -> Sequence[AuthToken]:
    return await repository.list_tokens(session, _scope_to_caller(auth, filters), sort)


async def delete(session: AsyncSession, auth: AuthContext, token_id: uuid.UUID) -> None:
    """Deleted at once: signed requests look the token up on every request, so it stops working now."""
    token = await repository.by_id(session, token_id)
    if token is None or token.client_id is not None:
        raise NotFound()
    log.info("user %s deletes API token %s of user %s", auth.user_id, token.id, token.user_id)
    if token.user_id != auth.user_id and not auth.has(P.AUTH_MANAGE_USERS):
        log.warning("user %s was refused deleting API token %s of user %s", auth.user_id, token.id, token.user_id)
        raise Forbidden()
    await repository.remove(session, token.id)
    log.info("API token %s deleted", token.id)
