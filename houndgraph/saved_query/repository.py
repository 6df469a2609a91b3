"""SQL of saved queries and of their sharing rows."""

from __future__ import annotations

import functools
import uuid
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Dialect, and_, bindparam, delete, exists, func, or_, select, true
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.db import graph_connection
from houndgraph.models import SavedQuery, SavedQueryPermission, User

Condition = ColumnElement[bool] | None


def _shared_to(user_id: uuid.UUID) -> ColumnElement[bool]:
    return exists().where(SavedQueryPermission.query_id == SavedQuery.id,
                          SavedQueryPermission.shared_to_user_id == user_id)


def _public() -> ColumnElement[bool]:
    return exists().where(SavedQueryPermission.query_id == SavedQuery.id, SavedQueryPermission.public)


async def get(session: AsyncSession, query_id: int) -> SavedQuery | None:
    return await session.get(SavedQuery, query_id)


async def add(session: AsyncSession, rows: Sequence[SavedQuery]) -> None:
    """Insert; a name the user already has raises IntegrityError on `uq_saved_queries_user_id`."""
    session.add_all(rows)
    await session.flush()
    for row in rows:
        await session.refresh(row)


async def save(session: AsyncSession, row: SavedQuery) -> None:
    await session.flush()
    await session.refresh(row)


async def delete_query(session: AsyncSession, query_id: int) -> None:
    await session.execute(delete(SavedQuery).where(SavedQuery.id == query_id))


async def list_owned(session: AsyncSession, user_id: uuid.UUID, condition: Condition, order: list[Any]
                     ) -> list[SavedQuery]:
    """Every query the user owns, as models (the scoped list, export); the plain list pages in SQL
    (`list_owned_rows`)."""
    where = and_(SavedQuery.user_id == user_id, condition if condition is not None else true())
    return list(await session.scalars(select(SavedQuery).where(where).order_by(*order, SavedQuery.id)))


# The columns of a saved query as the list shows it, in `SavedQueryView`'s order.
LISTED_COLUMNS = (SavedQuery.id, SavedQuery.user_id, SavedQuery.name, SavedQuery.query, SavedQuery.description,
                  SavedQuery.created_at, SavedQuery.updated_at)


async def list_owned_rows(session: AsyncSession, user_id: uuid.UUID, condition: Condition, order: list[Any],
                          skip: int, limit: int) -> tuple[list[tuple[Any, ...]], int]:
    """`list_owned`'s page as plain rows of `LISTED_COLUMNS`, and the count, read on the driver's connection in
    one statement: a list of hundreds of queries costs the ORM (entities, then SQLAlchemy's result rows)
    several times what PostgreSQL spends on it."""
    where = and_(SavedQuery.user_id == user_id, condition if condition is not None else true())
    if condition is None and not order:
        sql = _plain_owned_page(session.get_bind().dialect)
        params: dict[str, Any] = {"user_id": user_id, "skip": skip, "limit": limit}
    else:
        statement = (select(*LISTED_COLUMNS, func.count().over()).where(where).order_by(*order, SavedQuery.id)
                     .offset(skip).limit(limit))
        compiled = statement.compile(dialect=session.get_bind().dialect,
                                     compile_kwargs={"render_postcompile": True})
        sql, params = str(compiled), compiled.params
    conn = await graph_connection(session)
    cursor = await conn.execute(sql, params)
    rows = await cursor.fetchall()
    if rows:
        return [row[:-1] for row in rows], int(rows[0][-1])
    # A page past the end has no row to carry the count.
    count = await session.scalar(select(func.count()).select_from(SavedQuery).where(where)) or 0
    return [], count


@functools.cache
def _plain_owned_page(dialect: Dialect) -> str:
    """The SQL of the everyday list (no filter, no sort), compiled once: compiling costs more than the rest."""
    statement = (select(*LISTED_COLUMNS, func.count().over()).where(SavedQuery.user_id == bindparam("user_id"))
                 .order_by(SavedQuery.id).offset(bindparam("skip")).limit(bindparam("limit")))
    return str(statement.compile(dialect=dialect))


async def list_shared_to(session: AsyncSession, user_id: uuid.UUID, condition: Condition,
                         order: list[Any]) -> list[SavedQuery]:
    where = and_(_shared_to(user_id), SavedQuery.user_id != user_id, condition if condition is not None else true())
    return list(await session.scalars(select(SavedQuery).where(where).order_by(*order, SavedQuery.id)))


async def list_public(session: AsyncSession, condition: Condition, order: list[Any]) -> list[SavedQuery]:
    where = and_(_public(), condition if condition is not None else true())
    return list(await session.scalars(select(SavedQuery).where(where).order_by(*order, SavedQuery.id)))


async def list_visible(session: AsyncSession, user_id: uuid.UUID) -> list[SavedQuery]:
    """Owned, shared to the user, or public: each query once."""
    where = or_(SavedQuery.user_id == user_id, _shared_to(user_id), _public())
    return list(await session.scalars(select(SavedQuery).where(where).order_by(SavedQuery.id)))


async def is_public(session: AsyncSession, query_id: int) -> bool:
    return bool(await session.scalar(select(exists().where(SavedQueryPermission.query_id == query_id,
                                                           SavedQueryPermission.public))))


async def is_shared_to(session: AsyncSession, query_id: int, user_id: uuid.UUID) -> bool:
    return bool(await session.scalar(select(exists().where(SavedQueryPermission.query_id == query_id,
                                                           SavedQueryPermission.shared_to_user_id == user_id))))


async def permissions_of(session: AsyncSession, query_id: int) -> list[SavedQueryPermission]:
    return list(await session.scalars(select(SavedQueryPermission).where(SavedQueryPermission.query_id == query_id)
                                      .order_by(SavedQueryPermission.id)))


async def make_public(session: AsyncSession, query_id: int) -> SavedQueryPermission:
    """Public replaces every user share: the query is visible to all anyway."""
    await delete_permissions(session, query_id)
    row = SavedQueryPermission(query_id=query_id, public=True, shared_to_user_id=None)
    session.add(row)
    await session.flush()
    await session.refresh(row)
    return row


async def share_to_users(session: AsyncSession, query_id: int,
                         user_ids: Iterable[uuid.UUID]) -> list[SavedQueryPermission]:
    """Add shares; sharing again to a user who has it already is not an error. Returns the rows of `user_ids`."""
    ids = list(dict.fromkeys(user_ids))
    await session.execute(
        insert(SavedQueryPermission)
        .values([{"query_id": query_id, "shared_to_user_id": user_id, "public": False} for user_id in ids])
        .on_conflict_do_nothing(index_elements=["query_id", "shared_to_user_id"])
    )
    return list(await session.scalars(
        select(SavedQueryPermission)
        .where(SavedQueryPermission.query_id == query_id, SavedQueryPermission.shared_to_user_id.in_(ids))
        .order_by(SavedQueryPermission.id)
        .execution_options(populate_existing=True)
    ))


async def delete_permissions(session: AsyncSession, query_id: int,
                             user_ids: Sequence[uuid.UUID] | None = None) -> None:
    """Remove the shares to `user_ids`, or every row of the query (shares and the public flag) when None."""
    statement = delete(SavedQueryPermission).where(SavedQueryPermission.query_id == query_id)
    if user_ids is not None:
        statement = statement.where(SavedQueryPermission.shared_to_user_id.in_(list(user_ids)))
    await session.execute(statement)


async def existing_user_ids(session: AsyncSession, user_ids: Iterable[uuid.UUID]) -> set[uuid.UUID]:
    ids = list(set(user_ids))
    if not ids:
        return set()
    return set(await session.scalars(select(User.id).where(User.id.in_(ids))))
