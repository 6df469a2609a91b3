"""SQL of events (schedules), and the graph lookups that check and describe a collection scope."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.event.listing import EVENTS
from houndgraph.kit.filters import Filter, where
from houndgraph.kit.pagination import Page
from houndgraph.kit.sorting import SortKey, order_by
from houndgraph.models import Client, ClientEvent


async def client_is_live(session: AsyncSession, client_id: uuid.UUID) -> bool:
    return await session.scalar(select(Client.id).where(Client.id == client_id, Client.deleted_at.is_(None))) \
        is not None


async def live_by_id(session: AsyncSession, event_id: int) -> ClientEvent | None:
    return await session.scalar(select(ClientEvent).where(ClientEvent.id == event_id,
                                                          ClientEvent.deleted_at.is_(None)))


async def of_clients(session: AsyncSession, client_ids: Iterable[uuid.UUID]) -> Sequence[ClientEvent]:
    return (await session.scalars(
        select(ClientEvent).where(ClientEvent.client_id.in_(list(client_ids)), ClientEvent.deleted_at.is_(None))
        .order_by(ClientEvent.id))).all()


async def list_events(session: AsyncSession, filters: list[Filter], sort: Sequence[SortKey],
                      page: Page) -> tuple[Sequence[ClientEvent], int]:
    condition = where(filters, EVENTS.expressions)
    statement = select(ClientEvent).where(ClientEvent.deleted_at.is_(None))
    if condition is not None:
        statement = statement.where(condition)
    count = await session.scalar(select(func.count()).select_from(statement.subquery())) or 0
    rows = await session.scalars(statement.order_by(*order_by(sort, EVENTS.expressions), ClientEvent.id)
                                 .offset(page.skip).limit(page.limit))
    return rows.all(), count


async def soft_delete_of_client(session: AsyncSession, client_id: uuid.UUID, now: datetime) -> None:
    await session.execute(update(ClientEvent).where(ClientEvent.client_id == client_id,
                                                    ClientEvent.deleted_at.is_(None))
                          .values(deleted_at=now, next_scheduled_at=None))


# --- the graph: OUs and domains a scope names -------------------------------------------------

_LOOKUP = text(
    "SELECT n.properties FROM node n JOIN kind k ON k.id = ANY(n.kind_ids) AND k.name = :kind "
    "WHERE n.properties->>'objectid' = ANY(:ids) OR upper(n.properties->>'distinguishedname') = ANY(:dns)"
)


async def scope_nodes(session: AsyncSession, kind: str, object_ids: list[str],
                      distinguished_names: list[str]) -> list[dict[str, Any]]:
    """Properties of the `kind` nodes with one of the (upper-cased) object ids or distinguished names."""
    if not object_ids and not distinguished_names:
        return []
    rows = await session.execute(_LOOKUP, {"kind": kind, "ids": object_ids, "dns": distinguished_names})
    return [row[0] or {} for row in rows]
