"""SQL of privilege zones: tags, selectors with their seeds, selected nodes, history."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import (
    ColumnElement,
    and_,
    column,
    delete,
    exists,
    func,
    literal,
    select,
    table,
    text,
    true,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY, SMALLINT, distinct_on
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from houndgraph.analysis.zones.model import Certification, TagType, tag_kind
from houndgraph.db import graph_connection
from houndgraph.graph.kind_catalogue import ensure_kinds, kind_map
from houndgraph.kit.sorting import SortKey, order_by
from houndgraph.models import (
    AssetGroupHistory,
    AssetGroupTag,
    AssetGroupTagSelector,
    AssetGroupTagSelectorNode,
    User,
)

Condition = ColumnElement[bool] | None
Node = AssetGroupTagSelectorNode
Selector = AssetGroupTagSelector
# The graph tables, read here for kinds and member existence (their SQL otherwise lives in graph/).
GRAPH_NODE = table("node", column("id"), column("kind_ids", ARRAY(SMALLINT)), column("properties"))


def _and(*conditions: Condition) -> ColumnElement[bool]:
    present = [condition for condition in conditions if condition is not None]
    return and_(*present) if present else true()


# --- tags ----------------------------------------------------------------------------------------


async def get_tag(session: AsyncSession, tag_id: int) -> AssetGroupTag | None:
    return await session.scalar(select(AssetGroupTag).where(AssetGroupTag.id == tag_id,
                                                            AssetGroupTag.deleted_at.is_(None)))


async def list_tags(session: AsyncSession, condition: Condition) -> list[AssetGroupTag]:
    rows = await session.scalars(select(AssetGroupTag).where(_and(AssetGroupTag.deleted_at.is_(None), condition))
                                 .order_by(AssetGroupTag.id))
    return list(rows)


async def tag_named(session: AsyncSession, name: str) -> AssetGroupTag | None:
    return await session.scalar(select(AssetGroupTag).where(AssetGroupTag.name == name,
                                                            AssetGroupTag.deleted_at.is_(None)))


async def tag_with_glyph(session: AsyncSession, glyph: str) -> AssetGroupTag | None:
    return await session.scalar(select(AssetGroupTag).where(AssetGroupTag.glyph == glyph,
                                                            AssetGroupTag.deleted_at.is_(None)))


async def zones(session: AsyncSession) -> list[AssetGroupTag]:
    return await list_tags(session, AssetGroupTag.type == TagType.ZONE)


async def kind_id(session: AsyncSession, name: str) -> int:
    """The graph kind of a tag name, created if new (the graph's kind catalogue table)."""
    kind = tag_kind(name)
    conn = await graph_connection(session)
    kinds = await kind_map(conn)
    await ensure_kinds(conn, kinds, [kind])
    return kinds[kind]


async def add(session: AsyncSession, row: Any) -> None:
    session.add(row)
    await session.flush()
    await session.refresh(row)


async def save(session: AsyncSession, row: Any) -> None:
    await session.flush()
    await session.refresh(row)


async def shift_positions(session: AsyncSession, *, from_position: int, step: int, below: int | None = None) -> None:
    """Move zones at `from_position` and after (before `below`, when given) by `step`."""
    condition = _and(AssetGroupTag.type == TagType.ZONE, AssetGroupTag.deleted_at.is_(None),
                     AssetGroupTag.position >= from_position,
                     AssetGroupTag.position < below if below is not None else None)
    await session.execute(update(AssetGroupTag).where(condition).values(position=AssetGroupTag.position + step))


async def tag_member_counts(session: AsyncSession, kind_ids: Sequence[int]) -> dict[int, int]:
    """Graph nodes carrying each kind (the `members` count of a tag)."""
    if not kind_ids:
        return {}
    rows = await session.execute(text(
        "SELECT k, count(n.id) FROM unnest(CAST(:kinds AS smallint[])) AS k "
        "LEFT JOIN node n ON n.kind_ids @> ARRAY[k] GROUP BY k"), {"kinds": list(kind_ids)})
    return {int(kind): int(count) for kind, count in rows}


async def selector_counts(session: AsyncSession) -> dict[int, tuple[int, int, int, int]]:
    """Per tag: selectors, custom ones, default ones, disabled ones."""
    rows = await session.execute(select(
        Selector.asset_group_tag_id, func.count(),
        func.count().filter(~Selector.is_default), func.count().filter(Selector.is_default),
        func.count().filter(Selector.disabled_at.is_not(None))).group_by(Selector.asset_group_tag_id))
    return {tag: (total, custom, default, disabled) for tag, total, custom, default, disabled in rows}


async def user_emails(session: AsyncSession, ids: Sequence[str]) -> dict[str, str]:
    wanted = []
    for raw in ids:
        try:
            wanted.append(uuid.UUID(raw))
        except (ValueError, TypeError):
            continue
    if not wanted:
        return {}
    rows = await session.execute(select(User.id, User.email_address).where(User.id.in_(wanted)))
    return {str(user_id): email for user_id, email in rows if email}


# --- selectors -----------------------------------------------------------------------------------


async def get_selector(session: AsyncSession, selector_id: int) -> AssetGroupTagSelector | None:
    return await session.get(AssetGroupTagSelector, selector_id)


async def selector_named(session: AsyncSession, tag_id: int, name: str) -> AssetGroupTagSelector | None:
    return await session.scalar(select(Selector).where(Selector.asset_group_tag_id == tag_id, Selector.name == name))


async def list_selectors(session: AsyncSession, tag_id: int, condition: Condition, order: list[Any],
                         skip: int = 0, limit: int | None = None) -> tuple[list[AssetGroupTagSelector], int]:
    where = _and(Selector.asset_group_tag_id == tag_id, condition)
    count = await session.scalar(select(func.count()).select_from(Selector).where(where)) or 0
    statement = select(Selector).where(where).order_by(*order, Selector.id).offset(skip)
    if limit is not None:
        statement = statement.limit(limit)
    return list(await session.scalars(statement)), count


async def selectors_of(session: AsyncSession, tag_id: int) -> list[AssetGroupTagSelector]:
    rows, _ = await list_selectors(session, tag_id, None, [])
    return rows


async def delete_selector(session: AsyncSession, selector_id: int) -> None:
    await session.execute(delete(Selector).where(Selector.id == selector_id))


async def delete_selectors_of(session: AsyncSession, tag_id: int) -> None:
    await session.execute(delete(Selector).where(Selector.asset_group_tag_id == tag_id))


async def selector_member_counts(session: AsyncSession, selector_ids: Sequence[int],
                                 environments: Sequence[str] = ()) -> dict[int, int]:
    condition = _and(Node.selector_id.in_(selector_ids),
                     Node.node_environment_id.in_(environments) if environments else None)
    rows = await session.execute(select(Node.selector_id, func.count()).where(condition).group_by(Node.selector_id))
    return {selector: count for selector, count in rows}


# --- selected nodes (members) ----------------------------------------------------------------------


def _live_nodes(tag_id: int) -> ColumnElement[bool]:
    """Rows of the tag's enabled selectors whose node still exists."""
    return and_(Selector.asset_group_tag_id == tag_id, Selector.disabled_at.is_(None),
                exists().where(GRAPH_NODE.c.id == Node.node_id))


async def list_members(session: AsyncSession, tag_id: int, condition: Condition, sort: Sequence[SortKey],
                       sort_columns: Mapping[str, Any], skip: int, limit: int, selector_id: int | None = None,
                       tagged_kind: int | None = None) -> tuple[list[tuple[AssetGroupTagSelectorNode, int]], int]:
    """One row per member node (its lowest source), filtered and ordered; with the total count.

    `tagged_kind`: only nodes carrying that graph kind (a zone's members are the nodes it tagged)."""
    where = _and(_live_nodes(tag_id), Node.selector_id == selector_id if selector_id is not None else None,
                 condition, _carries(tagged_kind))
    first = (select(Node, func.min(Node.source).over(partition_by=Node.node_id).label("best"),
                    func.row_number().over(partition_by=Node.node_id, order_by=(Node.source, Node.selector_id))
                    .label("rank"))
             .join(Selector, Selector.id == Node.selector_id).where(where).subquery())
    member = aliased(Node, first)
    base = select(member, first.c.best).where(first.c.rank == 1)
    count = await session.scalar(select(func.count()).select_from(base.subquery())) or 0
    # The declared columns, read from the rows picked (the subquery's copy of each).
    columns = {name: getattr(member, column.key) for name, column in sort_columns.items()}
    rows = await session.execute(base.order_by(*order_by(sort, columns), member.node_id).offset(skip).limit(limit))
    return [(row, int(best)) for row, best in rows], count


def _carries(kind_id: int | None) -> ColumnElement[bool] | None:
    if kind_id is None:
        return None
    return exists().where(GRAPH_NODE.c.id == Node.node_id,
                          GRAPH_NODE.c.kind_ids.contains(literal([kind_id], ARRAY(SMALLINT))))


async def member_kind_counts(session: AsyncSession, tag_id: int, selector_id: int | None = None,
                             environments: Sequence[str] = (), tagged_kind: int | None = None) -> dict[str, int]:
    where = _and(_live_nodes(tag_id), Node.selector_id == selector_id if selector_id is not None else None,
                 Node.node_environment_id.in_(environments) if environments else None, _carries(tagged_kind))
    per_node = (select(Node.node_id, func.min(Node.node_primary_kind).label("kind"))
                .join(Selector, Selector.id == Node.selector_id).where(where).group_by(Node.node_id).subquery())
    rows = await session.execute(select(per_node.c.kind, func.count()).group_by(per_node.c.kind))
    return {kind: count for kind, count in rows}


async def member_rows(session: AsyncSession, tag_id: int, node_id: int) -> list[AssetGroupTagSelectorNode]:
    rows = await session.scalars(select(Node).join(Selector, Selector.id == Node.selector_id)
                                 .where(Selector.asset_group_tag_id == tag_id, Node.node_id == node_id)
                                 .order_by(Node.source, Node.selector_id))
    return list(rows)


async def node_properties(session: AsyncSession, node_id: int) -> dict[str, Any] | None:
    return await session.scalar(select(GRAPH_NODE.c.properties).where(GRAPH_NODE.c.id == node_id))


async def rows_of_nodes(session: AsyncSession, node_ids: Sequence[int]) -> list[AssetGroupTagSelectorNode]:
    rows = await session.scalars(select(Node).where(Node.node_id.in_(node_ids)))
    return list(rows)


async def set_certification(session: AsyncSession, node_ids: Sequence[int], state: Certification,
                            actor: str) -> None:
    """Manual certification or revocation of every non-automatic row of these nodes."""
    await session.execute(update(Node).where(Node.node_id.in_(node_ids), Node.certified != Certification.AUTO)
                          .values(certified=state, certified_by=actor, updated_at=func.now()))


async def list_certifications(session: AsyncSession, condition: Condition, skip: int,
                              limit: int) -> tuple[list[tuple[AssetGroupTagSelectorNode, int]], int]:
    rows_query = (select(Node, Selector.asset_group_tag_id)
                  .join(Selector, Selector.id == Node.selector_id)
                  .where(_and(Selector.disabled_at.is_(None), condition))
                  .ext(distinct_on(Node.node_id, Selector.asset_group_tag_id))
                  .order_by(Node.node_id, Selector.asset_group_tag_id, Node.certified.desc()))
    count = await session.scalar(select(func.count()).select_from(rows_query.subquery())) or 0
    rows = await session.execute(rows_query.offset(skip).limit(limit))
    return [(row, tag_id) for row, tag_id in rows], count


async def search_members(session: AsyncSession, tag_ids: Sequence[int], text_query: str,
                         limit: int) -> list[tuple[AssetGroupTagSelectorNode, int]]:
    pattern = f"%{text_query.lower()}%"
    rows = await session.execute(
        select(Node, Selector.asset_group_tag_id).join(Selector, Selector.id == Node.selector_id)
        .where(Selector.asset_group_tag_id.in_(tag_ids), Selector.disabled_at.is_(None),
               func.lower(Node.node_name).like(pattern) | func.lower(Node.node_object_id).like(pattern))
        .ext(distinct_on(Node.node_name, Node.node_id)).order_by(Node.node_name, Node.node_id).limit(limit))
    return [(row, tag_id) for row, tag_id in rows]


async def search_selectors(session: AsyncSession, tag_ids: Sequence[int], text_query: str,
                           limit: int) -> list[AssetGroupTagSelector]:
    rows = await session.scalars(select(Selector).where(Selector.asset_group_tag_id.in_(tag_ids),
                                                        Selector.name.ilike(f"%{text_query}%"))
                                 .order_by(Selector.name, Selector.id).limit(limit))
    return list(rows)


# --- history -------------------------------------------------------------------------------------


async def list_history(session: AsyncSession, condition: Condition, order: list[Any], skip: int,
                       limit: int) -> tuple[list[AssetGroupHistory], int]:
    where = _and(condition)
    count = await session.scalar(select(func.count()).select_from(AssetGroupHistory).where(where)) or 0
    rows = await session.scalars(select(AssetGroupHistory).where(where)
                                 .order_by(*order, AssetGroupHistory.id.desc()).offset(skip).limit(limit))
    return list(rows), count
