"""The graph side of legacy asset groups: the nodes carrying a tag's kind."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession


async def tagged_nodes(session: AsyncSession, kind_id: int) -> list[tuple[list[str], dict[str, Any]]]:
    """`(kind names, properties)` of every node carrying the kind, by node id."""
    rows = await session.execute(text(
        "SELECT ARRAY(SELECT k.name FROM unnest(n.kind_ids) WITH ORDINALITY AS u(id, i) JOIN kind k ON k.id = u.id "
        "ORDER BY u.i), n.properties FROM node n WHERE n.kind_ids @> ARRAY[CAST(:kind AS smallint)] ORDER BY n.id"),
        {"kind": kind_id})
    return [(list(kinds), properties) for kinds, properties in rows]
