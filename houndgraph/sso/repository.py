"""SQL of SSO providers, their SAML settings, and the users and sessions linked to them."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, delete, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.models import Role, SAMLAssertionUse, SAMLProvider, SSOProvider, User, UserSession

# The reference's session auth provider numbers (secret 0, SAML 1, OIDC 2).
SESSION_AUTH_PROVIDER_SAML = 1


async def add(session: AsyncSession, provider: SSOProvider) -> SSOProvider:
    """Insert the provider and its SAML row; a taken name or slug raises IntegrityError."""
    session.add(provider)
    await session.flush()
    await session.refresh(provider)
    return provider


async def save(session: AsyncSession, provider: SSOProvider) -> SSOProvider:
    await session.flush()
    await session.refresh(provider)
    return provider


async def by_id(session: AsyncSession, provider_id: int) -> SSOProvider | None:
    return await session.get(SSOProvider, provider_id)


async def by_saml_id(session: AsyncSession, saml_provider_id: int) -> SSOProvider | None:
    statement = select(SSOProvider).join(SAMLProvider, SAMLProvider.sso_provider_id == SSOProvider.id)
    return await session.scalar(statement.where(SAMLProvider.id == saml_provider_id))


async def by_slug(session: AsyncSession, slug: str) -> SSOProvider | None:
    return await session.scalar(select(SSOProvider).where(SSOProvider.slug == slug))


async def list_all(session: AsyncSession, condition: ColumnElement[bool] | None, order: list[Any]) -> list[SSOProvider]:
    statement = select(SSOProvider).order_by(*order, SSOProvider.id)
    if condition is not None:
        statement = statement.where(condition)
    return list(await session.scalars(statement))


async def role_exists(session: AsyncSession, role_id: int) -> bool:
    return await session.get(Role, role_id) is not None


async def user_by_id(session: AsyncSession, user_id: uuid.UUID) -> User | None:
    return await session.get(User, user_id)


async def users_of(session: AsyncSession, provider_id: int) -> list[User]:
    return list(await session.scalars(select(User).where(User.sso_provider_id == provider_id).order_by(User.id)))


async def delete_provider(session: AsyncSession, provider: SSOProvider, user_ids: list[uuid.UUID]) -> None:
    """The SAML row goes with it (cascade) and its users are unlinked (SET NULL); their SSO sessions end."""
    if user_ids:
        await session.execute(delete(UserSession).where(UserSession.user_id.in_(user_ids),
                                                        UserSession.auth_provider_type == SESSION_AUTH_PROVIDER_SAML))
    await session.execute(delete(SSOProvider).where(SSOProvider.id == provider.id))


async def user_by_principal(session: AsyncSession, principal: str) -> User | None:
    return await session.scalar(select(User).where(func.lower(User.principal_name) == principal.lower()))


async def role_named(session: AsyncSession, name: str) -> Role | None:
    return await session.scalar(select(Role).where(Role.name == name))


async def role_by_id(session: AsyncSession, role_id: int) -> Role | None:
    return await session.get(Role, role_id)


async def add_user(session: AsyncSession, user: User) -> User:
    session.add(user)
    await session.flush()
    return user


async def claim_assertion(session: AsyncSession, assertion_id: str, expires_at: datetime) -> bool:
    """Record that this assertion signed someone in; False when it already had (a replay). Expired records go."""
    await session.execute(delete(SAMLAssertionUse).where(SAMLAssertionUse.expires_at < func.now()))
    claimed = await session.execute(insert(SAMLAssertionUse).values(assertion_id=assertion_id, expires_at=expires_at)
                                    .on_conflict_do_nothing().returning(SAMLAssertionUse.assertion_id))
    return claimed.first() is not None
