"""The entity views' SQL: one statement per count and per list page, over `graph.related` relations."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from houndgraph.database_errors import is_query_canceled
from houndgraph.entity.listing import ENTRIES
from houndgraph.graph.connection import GraphConnection
from houndgraph.graph.lookup import KIND_NAMES
from houndgraph.graph.related import KindIds, Relation
from houndgraph.kit.graph_shapes import TIER_ZERO_KIND, TIER_ZERO_TAG


@dataclass(frozen=True)
class Entry:
    id: int
    kinds: tuple[str, ...]
    properties: dict[str, Any]


@dataclass(frozen=True)
class Page:
    count: int
    entries: list[Entry]


class CountTimedOut(Exception):
    """The count passed the request's `Prefer: wait` deadline."""


async def count(conn: GraphConnection, relation: Relation, root: int, kinds: KindIds) -> int:
    """One count, behind a savepoint so that its failure leaves the request's transaction usable.
    A timeout raises `CountTimedOut`; any other database error counts as 0 (reference behaviour)."""
    rows = await _behind_savepoint(conn, f"SELECT count(*) FROM ({relation.sql(kinds)}) AS related", root)
    return int(rows[0][0]) if rows else 0


async def _behind_savepoint(conn: GraphConnection, sql: str, root: int) -> list[tuple[Any, ...]]:
    """The rows of `sql` for `root`, run behind a savepoint: on a timeout the savepoint is rolled back and
    `CountTimedOut` raised, on another database error no rows. The savepoint, the statement and its release are
    sent together (psycopg's pipeline): an entity panel's dozen counts waited for three round trips each."""
    try:
        async with conn.pipeline():
            await conn.execute("SAVEPOINT hg_entity_count")
            cursor = await conn.execute(sql, {"root": root})
            await conn.execute("RELEASE SAVEPOINT hg_entity_count")
        return await cursor.fetchall()
    except psycopg.Error as error:
        await conn.execute("ROLLBACK TO SAVEPOINT hg_entity_count")
        if is_query_canceled(error):
            raise CountTimedOut() from error
        return []


async def page(conn: GraphConnection, relation: Relation, root: int, kinds: KindIds, *,
               order: list[tuple[str, bool]], skip: int, limit: int) -> Page:
    """The total and one page of the relation's nodes, in one statement. Default order: graph id
    descending, as the reference."""
    clauses = [f"{ENTRIES.expressions[column]} {'DESC' if descending else 'ASC'} NULLS LAST"
               for column, descending in order]
    order_sql = ", ".join([*clauses, "n.id DESC"])
    cursor = await conn.execute(
        f"WITH related AS MATERIALIZED ({relation.sql(kinds)}), "
        f"page AS (SELECT n.id, {KIND_NAMES} AS kinds, n.properties FROM related r JOIN node n ON n.id = r.id "
        f"ORDER BY {order_sql} LIMIT %(limit)s OFFSET %(skip)s) "
        f"SELECT (SELECT count(*) FROM related), page.id, page.kinds, page.properties "
        f"FROM (SELECT 1) AS one LEFT JOIN page ON true",
        {"root": root, "skip": skip, "limit": limit})
    rows = await cursor.fetchall()
    total = int(rows[0][0]) if rows else 0
    return Page(total, [Entry(row[1], tuple(row[2]), row[3] or {}) for row in rows if row[1] is not None])


async def related_ids(conn: GraphConnection, relation: Relation, root: int, kinds: KindIds) -> list[int]:
    cursor = await conn.execute(f"SELECT id FROM ({relation.sql(kinds)}) AS related", {"root": root})
    return [row[0] for row in await cursor.fetchall()]


async def count_by_kind(conn: GraphConnection, sql: str, root: int) -> dict[str, int]:
    """Rows of (kind name, count), behind a savepoint like `count`: a failure is an empty breakdown and a
    timeout raises `CountTimedOut`."""
    return {str(name): int(total) for name, total in await _behind_savepoint(conn, sql, root)}


async def tier_zero_of_domain(conn: GraphConnection, domain_sid: str, kinds: KindIds) -> list[int]:
    """Nodes of the domain (by `domainsid`, or the domain itself) in Tier Zero: tagged by the zone kind or the
    legacy `admin_tier_0` system tag."""
    cursor = await conn.execute(
        f"SELECT n.id FROM node n WHERE (n.properties->>'domainsid' = %(sid)s OR n.properties->>'objectid' = %(sid)s) "
        f"AND (n.kind_ids && {kinds(TIER_ZERO_KIND)} OR (' ' || coalesce(n.properties->>'system_tags', '') || ' ') "
        "LIKE %(tag)s) ORDER BY n.id", {"sid": domain_sid.upper(), "tag": f"% {TIER_ZERO_TAG} %"})
    return [row[0] for row in await cursor.fetchall()]


async def set_property(conn: GraphConnection, node_id: int, key: str, value: Any) -> None:
    await conn.execute("UPDATE node SET properties = properties || jsonb_build_object(%(key)s::text, %(value)s::jsonb) "
                       "WHERE id = %(id)s", {"key": key, "value": Jsonb(value), "id": node_id})


async def linked_by_edge(conn: GraphConnection, node_id: int, edge_kind: str, *, outbound: bool, other_kind: str,
                         kinds: KindIds) -> dict[str, Any] | None:
    """The properties of one node of `other_kind` at the far end of an `edge_kind` edge of the node (the
    lowest edge id when there are several), or None."""
    near, far = ("start_id", "end_id") if outbound else ("end_id", "start_id")
    cursor = await conn.execute(
        f"SELECT o.properties FROM edge e JOIN node o ON o.id = e.{far} AND o.kind_ids && {kinds(other_kind)} "
        f"WHERE e.{near} = %(id)s AND e.kind_id = ANY({kinds(edge_kind)}) ORDER BY e.id LIMIT 1", {"id": node_id})
    row = await cursor.fetchone()
    return dict(row[0] or {}) if row else None
