"""SQL of API tokens."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.kit.filters import Filter, where
from houndgraph.kit.sorting import SortKey, order_by
from houndgraph.models import AuthToken
from houndgraph.token.listing import TOKENS


async def by_id(session: AsyncSession, token_id: uuid.UUID) -> AuthToken | None:
    return await session.get(AuthToken, token_id)


async def list_tokens(session: AsyncSession, filters: list[Filter], sort: Sequence[SortKey]) -> Sequence[AuthToken]:
    # Clients' tokens are managed through their client (`PUT /api/v2/clients/{id}/token`).
    statement = select(AuthToken).where(AuthToken.client_id.is_(None))
    condition = where(filters, TOKENS.expressions)
    if condition is not None:
        statement = statement.where(condition)
    # The id last, so equal sort keys still come back in a stable order.
    statement = statement.order_by(*order_by(sort, TOKENS.expressions), AuthToken.id)
    return (await session.scalars(statement)).all()


async def remove(session: AsyncSession, token_id: uuid.UUID) -> None:
    await session.execute(delete(AuthToken).where(AuthToken.id == token_id))
