"""User administration, the minimal user list, passwords, roles and permissions."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.auth.context import AuthContext
from houndgraph.auth.passwords import hash_password, verify_password
from houndgraph.auth.permissions import P
from houndgraph.config import service as config_service
from houndgraph.errors import BadRequest, Conflict, Forbidden, NotFound
from houndgraph.kit.filters import Filter
from houndgraph.kit.sorting import SortKey
from houndgraph.models import Permission, Role, User
from houndgraph.settings import InsecureSettingError, check_password_strength
from houndgraph.user import repository
from houndgraph.user.repository import UniqueViolation
from houndgraph.user.schemas import SecretUpdate, UserCreate, UserUpdate

# The reference's messages (cmd/api/src/api/v2/auth/auth.go and api/error.go).
PRINCIPAL_TAKEN = "principal name must be unique"
EMAIL_TAKEN = "email must be unique"
ONE_ROLE_ONLY = "a user can only have one role"
SELF_DISABLE = "user attempted to disable themselves"
SELF_ROLE_CHANGE = "user attempted to change own role"
SELF_DELETE = "User cannot delete themselves"
INVALID_CURRENT_PASSWORD = "Invalid current password"
SSO_USER_SECRET = "user has SAML auth enabled"


def _now() -> datetime:
    return datetime.now(UTC)


def check_secret_strength(secret: str) -> None:
    try:
        check_password_strength(secret)
    except InsecureSettingError as error:
        raise BadRequest(str(error)) from None


def _conflict(violation: UniqueViolation) -> Conflict:
    return Conflict(PRINCIPAL_TAKEN if violation.field == "principal" else EMAIL_TAKEN)


async def find(session: AsyncSession, user_id: uuid.UUID) -> User | None:
    return await repository.by_id(session, user_id)


async def get(session: AsyncSession, user_id: uuid.UUID) -> User:
    user = await repository.by_id(session, user_id)
    if user is None:
        raise NotFound()
    return user


async def by_principal(session: AsyncSession, principal: str) -> User:
    user = await repository.by_principal(session, principal)
    if user is None:
        raise NotFound(f"no user named {principal!r}")
    return user


async def role_id(session: AsyncSession, name: str) -> int:
    role = await repository.role_named(session, name)
    if role is None:
        raise BadRequest(f"no role named {name!r}")
    return role.id


async def list_users(session: AsyncSession, filters: list[Filter], sort: Sequence[SortKey]) -> Sequence[User]:
    return await repository.list_users(session, filters, sort)


async def list_active_users(session: AsyncSession, filters: list[Filter], sort: Sequence[SortKey]) -> Sequence[User]:
    """Enabled users only, without their roles: the minimal list is for choosing someone to share with."""
    return await repository.list_users(session, filters, sort, active_only=True, with_roles=False)


async def _roles(session: AsyncSession, role_ids: Sequence[int]) -> list[Role]:
    if len(role_ids) > 1:
        raise BadRequest(ONE_ROLE_ONLY)
    roles = list(await repository.roles_by_ids(session, role_ids))
    missing = sorted(set(role_ids) - {role.id for role in roles})
    if missing:
        raise BadRequest(f"unknown role id: {missing[0]}")
    return roles


async def _check_unique(session: AsyncSession, principal: str | None, email: str | None,
                        exclude: uuid.UUID | None = None) -> None:
    if principal and await repository.principal_in_use(session, principal, exclude):
        raise Conflict(PRINCIPAL_TAKEN)
    if email and await repository.email_in_use(session, email, exclude):
        raise Conflict(EMAIL_TAKEN)


async def _store_secret(session: AsyncSession, user_id: uuid.UUID, secret: str, must_change: bool) -> None:
    expires_at = _now() + await config_service.password_expiration_window(session)
    await repository.store_secret(session, user_id, hash_password(secret), expires_at, must_change)


async def create(session: AsyncSession, data: UserCreate) -> User:
    if data.secret:
        check_secret_strength(data.secret)
    roles = await _roles(session, data.roles)
    email = data.email_address or None
    await _check_unique(session, data.principal, email)
    # EULA acceptance is an Enterprise matter; the reference marks community users as having accepted it.
    user = User(principal_name=data.principal, first_name=data.first_name or None, last_name=data.last_name or None,
                email_address=email, is_disabled=data.is_disabled, eula_accepted=True, roles=roles)
    try:
        user = await repository.save(session, user)
    except UniqueViolation as violation:
        raise _conflict(violation) from None
    if data.secret:
        await _store_secret(session, user.id, data.secret, data.needs_password_reset)
    await repository.load_secret(session, user)
    return user


async def update(session: AsyncSession, auth: AuthContext, user_id: uuid.UUID, data: UserUpdate) -> User:
    user = await get(session, user_id)
    is_self = user.id == auth.user_id
    roles = await _roles(session, data.roles) if data.roles is not None else None
    if is_self and data.is_disabled:
        raise BadRequest(SELF_DISABLE)
    if is_self and roles is not None and {r.id for r in roles} != {r.id for r in user.roles}:
        raise BadRequest(SELF_ROLE_CHANGE)
    await _check_unique(session, data.principal, data.email_address, exclude=user.id)
    # As in the reference, an empty string leaves a field unchanged.
    if data.principal:
        user.principal_name = data.principal
    if data.first_name:
        user.first_name = data.first_name
    if data.last_name:
        user.last_name = data.last_name
    if data.email_address:
        user.email_address = data.email_address
    if roles is not None:
        user.roles = roles
    if data.is_disabled:
        await disable(session, user)
    elif data.is_disabled is not None:
        user.is_disabled = False
    try:
        return await repository.save(session, user)
    except UniqueViolation as violation:
        raise _conflict(violation) from None


async def disable(session: AsyncSession, user: User) -> None:
    """Disabled at once: sessions end now; API tokens stay but are refused while the owner is disabled."""
    if not user.is_disabled:
        await repository.end_sessions(session, user.id)
    user.is_disabled = True


async def delete(session: AsyncSession, auth: AuthContext, user_id: uuid.UUID) -> None:
    user = await get(session, user_id)
    if user.id == auth.user_id:
        raise BadRequest(SELF_DELETE)
    await repository.remove(session, user.id)


def may_manage(auth: AuthContext, user_id: uuid.UUID) -> None:
    """Users may act on themselves; acting on someone else takes AuthManageUsers. The reference answers
    this with a 401; the caller is authenticated, so it is a 403 here (same message)."""
    if user_id != auth.user_id and not auth.has(P.AUTH_MANAGE_USERS):
        raise Forbidden(f"not authorized for {user_id}")


async def set_secret(session: AsyncSession, auth: AuthContext, user_id: uuid.UUID, data: SecretUpdate) -> None:
    may_manage(auth, user_id)
    user = await get(session, user_id)
    check_secret_strength(data.secret)
    if user.id == auth.user_id:
        # A stolen session alone must not be enough to take over the account.
        current = await repository.secret_of(session, user.id)
        if not verify_password(current.digest if current else None, data.current_secret):
            raise Forbidden(INVALID_CURRENT_PASSWORD)
    await _store_secret(session, user.id, data.secret, data.needs_password_reset)
    # Whoever held a session (a stolen token, a forgotten browser) holds it no longer; the user who changed
    # their own password keeps the session they did it from.
    await repository.end_sessions(session, user.id, keep=auth.session_id if user.id == auth.user_id else None)


async def expire_secret(session: AsyncSession, user_id: uuid.UUID) -> None:
    """The user must choose a new password at next login (the reference sets the expiry to the zero time).
    A user without a password has nothing to expire."""
    user = await get(session, user_id)
    if user.sso_provider_id is not None:
        raise Conflict(SSO_USER_SECRET)
    secret = await repository.secret_of(session, user.id)
    if secret is not None:
        secret.expires_at = datetime(1, 1, 1, tzinfo=UTC)
        secret.must_change = True
        await session.flush()


async def accept_eula(session: AsyncSession, user_id: uuid.UUID) -> None:
    user = await get(session, user_id)
    user.eula_accepted = True
    await session.flush()


async def reset_secret(session: AsyncSession, user: User, secret: str, must_change: bool) -> None:
    """An administrator's reset (the CLI's): no current password asked for."""
    check_secret_strength(secret)
    await _store_secret(session, user.id, secret, must_change)
    await repository.end_sessions(session, user.id)


async def list_roles(session: AsyncSession, filters: list[Filter], sort: Sequence[SortKey]) -> Sequence[Role]:
    return await repository.list_roles(session, filters, sort)


async def get_role(session: AsyncSession, role_id: int) -> Role:
    role = await repository.role_by_id(session, role_id)
    if role is None:
        raise NotFound()
    return role


async def get_permission(session: AsyncSession, permission_id: int) -> Permission:
    permission = await repository.permission_by_id(session, permission_id)
    if permission is None:
        raise NotFound()
    return permission


async def list_permissions(session: AsyncSession, filters: list[Filter],
                           sort: Sequence[SortKey]) -> Sequence[Permission]:
    return await repository.list_permissions(session, filters, sort)
