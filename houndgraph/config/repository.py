"""SQL of configuration parameters. A parameter's value is read by one statement, run on the request's
session and on the datapipe's psycopg connection alike."""

from __future__ import annotations

from typing import Any

import psycopg
from sqlalchemy import ColumnElement, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.models import Parameter

_STORED_VALUE = "SELECT value FROM parameters WHERE key = %s"


async def stored_value(session: AsyncSession, key: str) -> dict[str, Any] | None:
    connection = await session.connection()
    return (await connection.exec_driver_sql(_STORED_VALUE, (key,))).scalar()


def stored_value_on(conn: psycopg.Connection, key: str) -> dict[str, Any] | None:
    row = conn.execute(_STORED_VALUE, (key,)).fetchone()
    return row[0] if row else None


async def list_parameters(session: AsyncSession, condition: ColumnElement[bool] | None = None) -> list[Parameter]:
    query = select(Parameter).order_by(Parameter.id)
    if condition is not None:
        query = query.where(condition)
    return list(await session.scalars(query))


async def upsert_value(session: AsyncSession, key: str, name: str, description: str,
                       value: dict[str, Any]) -> None:
    """Set a parameter's value; the row is created (with its catalogue name) if it was ever removed."""
    statement = insert(Parameter).values(key=key, name=name, description=description, value=value)
    await session.execute(statement.on_conflict_do_update(
        index_elements=[Parameter.key], set_={"value": statement.excluded.value, "updated_at": func.now()},
    ))
