"""The graph side of legacy asset groups: the nodes carrying a tag's kind."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.db import graph_connection
from houndgraph.graph.kind_catalogue import kind_map


async def tagged_nodes(session: AsyncSession, kind_id: int) -> list[tuple[list[str], dict[str, Any]]]:
    """`(kind names, properties)` of every node carrying the kind, by node id."""
    conn = await graph_connection(session)
    names = {kind: name for name, kind in (await kind_map(conn)).items()}
    cursor = await conn.execute("SELECT kind_ids, properties FROM node WHERE kind_ids @> ARRAY[%s]::smallint[] "
                                "ORDER BY id", (kind_id,))
    rows = await cursor.fetchall()
    return [([names[k] for k in kind_ids if k in names], properties) for kind_ids, properties in rows]
