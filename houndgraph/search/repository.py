"""Search SQL: nodes by name or object id (exact, then fuzzy), and the domains and tenants to pick from."""

from __future__ import annotations

from typing import Any

from houndgraph.graph.connection import GraphConnection
from houndgraph.graph.lookup import KIND_NAMES
from houndgraph.graph.related import KindIds
from houndgraph.graph.rows import NodeRow


async def search(conn: GraphConnection, query: str, kind_names: list[str], kinds: KindIds, *,
                 skip: int, limit: int) -> list[tuple[bool, NodeRow]]:
    """(exact?, node): exact matches of the name or object id first, then names containing
    the text and object ids starting with it, each part by name. The name trigram index and the object id
    b-tree (migration 0022) serve both. A node without a name is no exact match: `exact` is never NULL, which
    `ORDER BY exact DESC` would put first."""
    cursor = await conn.execute(
        f"SELECT exact, n.id, {KIND_NAMES}, n.properties FROM (SELECT n.id, coalesce(upper(n.properties->>'name') "
        f"= %(q)s OR n.properties->>'objectid' = %(q)s, false) AS exact FROM node n "
        f"WHERE n.kind_ids && {kinds(*kind_names)} AND "
        f"(n.properties->>'name' ILIKE %(contains)s OR n.properties->>'objectid' LIKE %(prefix)s)) AS hit "
        f"JOIN node n ON n.id = hit.id ORDER BY exact DESC, n.properties->>'name', n.id "
        f"LIMIT %(limit)s OFFSET %(skip)s",
        {"q": query.upper(), "contains": f"%{_escape(query)}%", "prefix": f"{_escape(query.upper())}%",
         "skip": skip, "limit": limit})
    return [(row[0], NodeRow(row[1], tuple(row[2]), row[3] or {})) for row in await cursor.fetchall()]


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


async def domains(conn: GraphConnection, kinds: KindIds, domain: str, tenant: str
                  ) -> list[tuple[str, dict[str, Any]]]:
    cursor = await conn.execute(
        f"SELECT CASE WHEN n.kind_ids && {kinds(domain)} THEN 'active-directory' ELSE 'azure' END, n.properties "
        f"FROM node n WHERE n.kind_ids && {kinds(domain, tenant)} ORDER BY n.properties->>'name', n.id")
    return [(row[0], row[1] or {}) for row in await cursor.fetchall()]
