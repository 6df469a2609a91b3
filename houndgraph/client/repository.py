"""SQL of collection clients and their signing tokens."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.client.listing import CLIENTS
from houndgraph.kit.filters import Filter, where
from houndgraph.kit.pagination import Page
from houndgraph.kit.sorting import SortKey, order_by
from houndgraph.models import AuthToken, Client


async def live_by_id(session: AsyncSession, client_id: uuid.UUID, *, for_update: bool = False) -> Client | None:
    statement = select(Client).where(Client.id == client_id, Client.deleted_at.is_(None))
    if for_update:
        statement = statement.with_for_update()
    return await session.scalar(statement)


async def name_taken(session: AsyncSession, name: str, other_than: uuid.UUID | None = None) -> bool:
    statement = select(Client.id).where(Client.name == name, Client.deleted_at.is_(None))
    if other_than is not None:
        statement = statement.where(Client.id != other_than)
    return await session.scalar(statement) is not None


async def list_clients(session: AsyncSession, filters: list[Filter], sort: Sequence[SortKey],
                       page: Page) -> tuple[Sequence[Client], int]:
    statement = select(Client).where(Client.deleted_at.is_(None))
    condition = where(filters, CLIENTS.expressions)
    if condition is not None:
        statement = statement.where(condition)
    count = await session.scalar(select(func.count()).select_from(statement.subquery())) or 0
    rows = await session.scalars(statement.order_by(*order_by(sort, CLIENTS.expressions), Client.id)
                                 .offset(page.skip).limit(page.limit))
    return rows.all(), count


async def add_token(session: AsyncSession, token: AuthToken) -> AuthToken:
    session.add(token)
    await session.flush()
    return token


async def token_of(session: AsyncSession, client_id: uuid.UUID) -> AuthToken | None:
    return await session.scalar(select(AuthToken).where(AuthToken.client_id == client_id)
                                .order_by(AuthToken.created_at.desc()).limit(1))


async def tokens_of(session: AsyncSession, client_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, AuthToken]:
    rows = await session.scalars(select(AuthToken).where(AuthToken.client_id.in_(list(client_ids)))
                                 .order_by(AuthToken.created_at))
    return {token.client_id: token for token in rows if token.client_id is not None}


async def delete_tokens(session: AsyncSession, client_id: uuid.UUID) -> None:
    await session.execute(delete(AuthToken).where(AuthToken.client_id == client_id))
