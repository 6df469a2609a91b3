"""SQL of the data-quality tables, and the completeness figures computed live from the graph."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.analysis.completeness import fraction, local_group_query, session_query
from houndgraph.db import graph_connection
from houndgraph.graph.kind_catalogue import kind_map
from houndgraph.kit.sorting import SortKey

# Table and filter column per kind of row; values are constants, never request data.
TABLES = {
    "ad": ("ad_data_quality_aggregations", None),
    "azure": ("azure_data_quality_aggregations", None),
    "ad_domain": ("ad_data_quality_stats", "domain_sid"),
    "azure_tenant": ("azure_data_quality_stats", "tenant_id"),
}


async def list_rows(session: AsyncSession, table_key: str, owner: str | None, start: datetime, end: datetime,
                    sort: list[SortKey], skip: int, limit: int) -> tuple[list[dict[str, Any]], int]:
    table, owner_column = TABLES[table_key]
    where = "deleted_at IS NULL AND created_at >= :start AND created_at < :end"
    params: dict[str, Any] = {"start": start, "end": end, "skip": skip, "limit": limit}
    if owner_column is not None:
        where += f" AND {owner_column} = :owner"
        params["owner"] = owner
    # Sort columns come from the allow-list in schemas.SORT_COLUMNS; id breaks ties for stable pages.
    order = ", ".join(f"{key.column} {'DESC' if key.descending else 'ASC'}" for key in sort) + ", id DESC"
    count = await session.scalar(text(f"SELECT count(*) FROM {table} WHERE {where}"), params)
    rows = await session.execute(
        text(f"SELECT * FROM {table} WHERE {where} ORDER BY {order} OFFSET :skip LIMIT :limit"), params
    )
    return [dict(row) for row in rows.mappings()], int(count or 0)


async def completeness(session: AsyncSession) -> tuple[float, float]:
    """(session completeness, local-group completeness) over the whole graph."""
    conn = await graph_connection(session)
    kinds = (await kind_map(conn)).get
    figures = []
    for query, params in (session_query(kinds), local_group_query(kinds)):
        cursor = await conn.execute(query, params)
        figures.append(fraction(await cursor.fetchone()))
    return figures[0], figures[1]
