"""GET /api/v2/search and GET /api/v2/available-domains."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.db import graph_connection
from houndgraph.errors import BadRequest
from houndgraph.graph import lookup
from houndgraph.graph.kinds import AD_NODE_KINDS, AZ_NODE_KINDS, ADNode, AZNode
from houndgraph.kit.filters import Predicate
from houndgraph.kit.graph_shapes import bh_graph, display_kind, system_tags
from houndgraph.kit.pagination import Page
from houndgraph.kit.query import ListQuery
from houndgraph.search import repository
from houndgraph.search.listing import DOMAINS

SEARCH_DEFAULT_LIMIT = 10
GRAPH_SEARCH_LIMIT = 100
MISSING_QUERY = "missing required query parameter: q"
MISSING_GRAPH_QUERY = "Expected search parameter to be set."
def check_node_types(types: list[str]) -> list[str]:
    unknown = [t for t in types if t not in AD_NODE_KINDS | AZ_NODE_KINDS]
    if unknown:
        raise BadRequest(f"there are errors in the query parameters: unknown node type: {unknown[0]}")
    return types


async def search(session: AsyncSession, query: str, types: list[str], page: Page) -> list[dict[str, Any]]:
    conn = await graph_connection(session)
    kinds = await lookup.kind_ids(conn)
    # Without a type, AD and Azure entities (every collected node carries one of the base kinds).
    rows = await repository.search(conn, query, types or [ADNode.Base, AZNode.Base], kinds, skip=page.skip,
                                   limit=page.limit)
    return [{"objectid": str(node.properties.get("objectid") or ""), "type": display_kind(node.kinds, node.properties),
             "name": str(node.properties.get("name") or node.properties.get("displayname")
                         or node.properties.get("objectid") or ""),
             "distinguishedname": str(node.properties.get("distinguishedname") or ""),
             "system_tags": system_tags(node.properties)}
            for _, node in rows]


def check_search_type(raw: str | None) -> bool:
    """`fuzzy` (the default) or `exact`; True for exact."""
    if raw in (None, "", "fuzzy"):
        return False
    if raw == "exact":
        return True
    raise BadRequest(f"Invalid search type: {raw}")


async def graph_search(session: AsyncSession, query: str, exact: bool) -> dict[str, dict[str, Any]]:
    """The UI's name search, as the legacy graph map: exact matches of the name or object id, or (fuzzy)
    also names containing the text and object ids starting with it."""
    conn = await graph_connection(session)
    kinds = await lookup.kind_ids(conn)
    rows = await repository.search(conn, query, [ADNode.Base, AZNode.Base], kinds, skip=0, limit=GRAPH_SEARCH_LIMIT)
    return bh_graph([node for is_exact, node in rows if is_exact or not exact], [])


def _matches(value: str, predicate: Predicate, wanted: str) -> bool:
    if predicate is Predicate.EQ:
        return value == wanted
    if predicate is Predicate.NEQ:
        return value != wanted
    return wanted.lower() in value.lower()


async def available_domains(session: AsyncSession, parsed: ListQuery) -> list[dict[str, Any]]:
    conn = await graph_connection(session)
    kinds = await lookup.kind_ids(conn)
    rows = [{"type": kind, "name": str(p.get("name") or ""), "id": str(p.get("objectid") or ""),
             "collected": bool(p.get("collected", False))}
            for kind, p in await repository.domains(conn, kinds, ADNode.Domain, AZNode.Tenant)]
    # A handful of domains and tenants: filtered and sorted here rather than in SQL.
    columns = DOMAINS.expressions
    for f in parsed.filters:
        rows = [r for r in rows if _matches(str(r[columns[f.column]]).lower() if f.column == "collected"
                                            else str(r[columns[f.column]]), f.predicate, str(f.value))]
    for key in reversed(parsed.sort):
        rows.sort(key=lambda r: str(r[columns[key.column]]), reverse=key.descending)
    return rows
