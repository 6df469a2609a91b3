"""SQL of users, roles and permissions. The synchronous functions (taking a `Session`) create the first
administrator at start-up, before the event loop serves requests; the asynchronous ones (taking an
`AsyncSession`) serve requests and the CLI."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session, raiseload

from houndgraph.kit.filters import Filter, where
from houndgraph.kit.sorting import SortKey, order_by
from houndgraph.models import AuthSecret, Permission, Role, User, UserSession
from houndgraph.user.listing import PERMISSIONS, ROLES, USERS

_UNIQUE_CONSTRAINTS = {"uq_users_principal_name": "principal", "uq_users_email_address": "email"}


class UniqueViolation(Exception):
    """Another user already has this principal name or email address (`field` says which)."""

    def __init__(self, field: str) -> None:
        super().__init__(field)
        self.field = field


def _listed(statement: Select[Any], columns: Mapping[str, Any], filters: list[Filter], sort: Sequence[SortKey],
            tiebreak: Any) -> Select[Any]:
    condition = where(filters, columns)
    if condition is not None:
        statement = statement.where(condition)
    return statement.order_by(*order_by(sort, columns), tiebreak)


def _same_text(column: Any, value: str, exclude: uuid.UUID | None) -> ColumnElement[bool]:
    # Case-insensitive: logins look principals up that way, so two that differ in case would be ambiguous.
    condition = func.lower(column) == value.lower()
    return condition & (User.id != exclude) if exclude is not None else condition


def _unique_violation(error: IntegrityError) -> UniqueViolation | None:
    constraint = getattr(getattr(error.orig, "diag", None), "constraint_name", None)
    field = _UNIQUE_CONSTRAINTS.get(constraint or "")
    return UniqueViolation(field) if field else None


# --- synchronous: start-up ----------------------------------------------------------------------

def role_by_name(session: Session, name: str) -> Role | None:
    return session.scalar(select(Role).where(Role.name == name))


def user_by_principal(session: Session, principal_name: str) -> User | None:
    return session.scalar(select(User).where(func.lower(User.principal_name) == principal_name.lower()))


def add_user(session: Session, user: User) -> User:
    session.add(user)
    session.flush()
    return user


def set_secret(session: Session, user_id: uuid.UUID, digest: str, expires_at: datetime,
               must_change: bool) -> None:
    row = session.scalar(select(AuthSecret).where(AuthSecret.user_id == user_id))
    if row is None:
        session.add(AuthSecret(user_id=user_id, digest=digest, expires_at=expires_at, must_change=must_change))
    else:
        row.digest, row.expires_at, row.must_change = digest, expires_at, must_change
    session.flush()


# --- asynchronous: requests and the CLI ---------------------------------------------------------

async def by_id(session: AsyncSession, user_id: uuid.UUID) -> User | None:
    return await session.get(User, user_id)


async def by_principal(session: AsyncSession, principal_name: str) -> User | None:
    return await session.scalar(select(User).where(_same_text(User.principal_name, principal_name, None)))


async def list_users(session: AsyncSession, filters: list[Filter], sort: Sequence[SortKey], *,
                     active_only: bool = False, with_roles: bool = True) -> Sequence[User]:
    statement = select(User) if with_roles else select(User).options(raiseload(User.roles))
    if active_only:
        statement = statement.where(User.is_disabled.is_(False))
    return (await session.scalars(_listed(statement, USERS.expressions, filters, sort, User.id))).all()


async def principal_in_use(session: AsyncSession, principal: str, exclude: uuid.UUID | None = None) -> bool:
    statement = select(func.count()).select_from(User).where(_same_text(User.principal_name, principal, exclude))
    return (await session.scalar(statement) or 0) > 0


async def email_in_use(session: AsyncSession, email: str, exclude: uuid.UUID | None = None) -> bool:
    statement = select(func.count()).select_from(User).where(_same_text(User.email_address, email, exclude))
    return (await session.scalar(statement) or 0) > 0


async def save(session: AsyncSession, user: User) -> User:
    """Insert or update; a unique violation that slipped past the checks (a race) becomes `UniqueViolation`."""
    session.add(user)
    try:
        await session.flush()
    except IntegrityError as error:
        violation = _unique_violation(error)
        if violation is None:
            raise
        raise violation from error
    return user


async def remove(session: AsyncSession, user_id: uuid.UUID) -> None:
    # Secrets, sessions and API tokens go with the user (ON DELETE CASCADE).
    await session.execute(delete(User).where(User.id == user_id))


async def end_sessions(session: AsyncSession, user_id: uuid.UUID, keep: int | None = None) -> None:
    """End the user's sessions, all of them or all but `keep`."""
    statement = delete(UserSession).where(UserSession.user_id == user_id)
    if keep is not None:
        statement = statement.where(UserSession.id != keep)
    await session.execute(statement)


async def use_totp_step(session: AsyncSession, user_id: uuid.UUID, step: int) -> bool:
    """Record `step` as the user's last accepted code; False when it, or a later one, was accepted before."""
    used = await session.execute(
        update(AuthSecret).where(AuthSecret.user_id == user_id,
                                 (AuthSecret.totp_last_step.is_(None)) | (AuthSecret.totp_last_step < step))
        .values(totp_last_step=step).returning(AuthSecret.user_id))
    return used.first() is not None


async def secret_of(session: AsyncSession, user_id: uuid.UUID) -> AuthSecret | None:
    return await session.scalar(select(AuthSecret).where(AuthSecret.user_id == user_id))


async def load_secret(session: AsyncSession, user: User) -> None:
    """Read the user's secret (a new user's, once stored) into `user.auth_secret`."""
    await session.refresh(user, ["auth_secret"])


async def store_secret(session: AsyncSession, user_id: uuid.UUID, digest: str, expires_at: datetime,
                       must_change: bool) -> None:
    row = await secret_of(session, user_id)
    if row is None:
        session.add(AuthSecret(user_id=user_id, digest=digest, expires_at=expires_at, must_change=must_change))
    else:
        row.digest, row.expires_at, row.must_change = digest, expires_at, must_change
    await session.flush()


async def roles_by_ids(session: AsyncSession, role_ids: Sequence[int]) -> Sequence[Role]:
    if not role_ids:
        return []
    return (await session.scalars(select(Role).where(Role.id.in_(role_ids)).order_by(Role.id))).all()


async def role_by_id(session: AsyncSession, role_id: int) -> Role | None:
    return await session.get(Role, role_id)


async def permission_by_id(session: AsyncSession, permission_id: int) -> Permission | None:
    return await session.get(Permission, permission_id)


async def role_named(session: AsyncSession, name: str) -> Role | None:
    return await session.scalar(select(Role).where(Role.name == name))


async def list_roles(session: AsyncSession, filters: list[Filter], sort: Sequence[SortKey]) -> Sequence[Role]:
    return (await session.scalars(_listed(select(Role), ROLES.expressions, filters, sort, Role.id))).all()


async def list_permissions(session: AsyncSession, filters: list[Filter],
                           sort: Sequence[SortKey]) -> Sequence[Permission]:
    statement = _listed(select(Permission), PERMISSIONS.expressions, filters, sort, Permission.id)
    return (await session.scalars(statement)).all()
