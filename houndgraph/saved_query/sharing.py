"""Sharing saved queries: with chosen users, or with everyone (public). The rules are the reference's
(reference/behaviour.md §15); where it answered for a query that does not exist, we answer 404."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.auth.context import AuthContext
from houndgraph.errors import BadRequest, Forbidden, NotFound
from houndgraph.models import SavedQuery, SavedQueryPermission
from houndgraph.saved_query import repository
from houndgraph.saved_query.schemas import PermissionRequest, UnshareRequest
from houndgraph.saved_query.service import QUERY_DOES_NOT_EXIST

PUBLIC_WITH_USERS = "Public cannot be true while user_ids is populated"
SHARED_QUERY_DOES_NOT_EXIST = "Query does not exist"
SELF_SHARE = "Cannot share query to self"
PUBLIC_SHARE = "Public query cannot be shared to users. You must set your query to private first"
NO_PERMISSIONS = "no query permissions exist for saved query"
UNSHARE_NOT_SHARED = "User cannot unshare a query from themselves that is not shared to them"
NOT_OWNER = "Query does not belong to the user"
UNKNOWN_USER = "unknown user"


@dataclass(frozen=True, slots=True)
class QueryPermissions:
    query_id: int
    public: bool
    shared_to_user_ids: list[uuid.UUID]


async def _existing(session: AsyncSession, query_id: int, message: str = QUERY_DOES_NOT_EXIST) -> SavedQuery:
    row = await repository.get(session, query_id)
    if row is None:
        raise NotFound(message)
    return row


async def get_permissions(session: AsyncSession, auth: AuthContext, query_id: int) -> QueryPermissions:
    """Visible to the owner and administrators, and to anyone once public. A user the query is shared
    with does not learn who else has it."""
    row = await _existing(session, query_id)
    rows = await repository.permissions_of(session, query_id)
    public = any(permission.public for permission in rows)
    if not (public or auth.is_administrator or row.user_id == auth.user_id):
        raise NotFound(NO_PERMISSIONS)
    users = [] if public else [p.shared_to_user_id for p in rows if p.shared_to_user_id is not None]
    return QueryPermissions(query_id, public, users)


def _refuse_self_share(auth: AuthContext, user_ids: list[uuid.UUID]) -> None:
    if auth.user_id in user_ids:
        raise BadRequest(SELF_SHARE)


def _authorize_share(auth: AuthContext, owns: bool, public: bool, request: PermissionRequest) -> None:
    """Owners manage the sharing of their private queries (and may make them public); administrators may
    also make their own queries public and make anyone's public query private again."""
    if auth.is_administrator:
        if request.public and owns:
            return
        if not request.user_ids and (owns or public):
            return
        if request.user_ids and not request.public:
            if public:
                raise BadRequest(PUBLIC_SHARE)
            if owns:
                _refuse_self_share(auth, request.user_ids)
                return
    elif owns and not public:
        _refuse_self_share(auth, request.user_ids)
        return
    raise Forbidden()


async def share(session: AsyncSession, auth: AuthContext, query_id: int,
                request: PermissionRequest) -> list[SavedQueryPermission] | None:
    """Returns the rows created (201), or None when nothing is created (204)."""
    if request.public and request.user_ids:
        raise BadRequest(PUBLIC_WITH_USERS)
    row = await _existing(session, query_id, SHARED_QUERY_DOES_NOT_EXIST)
    public = await repository.is_public(session, query_id)
    _authorize_share(auth, row.user_id == auth.user_id, public, request)
    if request.public:
        return None if public else [await repository.make_public(session, query_id)]
    if not request.user_ids:
        await repository.delete_permissions(session, query_id)
        return None
    if public:
        raise BadRequest(PUBLIC_SHARE)
    known = await repository.existing_user_ids(session, request.user_ids)
    unknown = [str(user_id) for user_id in request.user_ids if user_id not in known]
    if unknown:
        raise BadRequest(f"{UNKNOWN_USER}: {', '.join(unknown)}")
    return await repository.share_to_users(session, query_id, request.user_ids)


async def unshare(session: AsyncSession, auth: AuthContext, query_id: int, request: UnshareRequest) -> None:
    """Users may drop a query shared to them; the owner and administrators may unshare it from anyone.
    An empty list removes every share (and the public flag) — owner and administrators only."""
    row = await _existing(session, query_id)
    if auth.user_id in request.user_ids and not await repository.is_shared_to(session, query_id, auth.user_id):
        raise BadRequest(UNSHARE_NOT_SHARED)
    # The reference skipped the ownership check for everyone listed next to the caller; we check them.
    touches_others = not request.user_ids or any(user_id != auth.user_id for user_id in request.user_ids)
    if touches_others and not auth.is_administrator and row.user_id != auth.user_id:
        raise Forbidden(NOT_OWNER)
    await repository.delete_permissions(session, query_id, request.user_ids or None)
