"""GET /api/v2/search and GET /api/v2/available-domains."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.db import graph_connection
from houndgraph.errors import BadRequest
from houndgraph.graph import lookup
from houndgraph.graph.kinds import AD_NODE_KINDS, AZ_NODE_KINDS, ADNode, AZNode
from houndgraph.kit.filters import STRING_PREDICATES, FilterColumn, Predicate
from houndgraph.kit.graph_shapes import display_kind, system_tags
from houndgraph.kit.pagination import Page
from houndgraph.kit.query import ListColumns, ListQuery
from houndgraph.kit.sorting import SortKey
from houndgraph.search import repository

SEARCH_DEFAULT_LIMIT = 10
MISSING_QUERY = "missing required query parameter: q"
DOMAINS = ListColumns(
    sortable=("objectid", "name"),
    filters={name: FilterColumn(STRING_PREDICATES) for name in ("objectid", "name", "collected")},
    default_sort=(SortKey("name"),),
)


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
    return [{"objectid": str(props.get("objectid") or ""), "type": display_kind(node_kinds, props),
             "name": str(props.get("name") or props.get("displayname") or props.get("objectid") or ""),
             "distinguishedname": str(props.get("distinguishedname") or ""), "system_tags": system_tags(props)}
            for _, node_kinds, props in rows]


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
    columns = {"objectid": "id", "name": "name", "collected": "collected"}
    for f in parsed.filters:
        rows = [r for r in rows if _matches(str(r[columns[f.column]]).lower() if f.column == "collected"
                                            else str(r[columns[f.column]]), f.predicate, str(f.value))]
    for key in reversed(parsed.sort):
        rows.sort(key=lambda r: str(r[columns[key.column]]), reverse=key.descending)
    return rows
