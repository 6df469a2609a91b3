"""SQL of configuration parameters."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.models import Parameter


async def stored_value(session: AsyncSession, key: str) -> dict[str, Any] | None:
    return await session.scalar(select(Parameter.value).where(Parameter.key == key))


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
