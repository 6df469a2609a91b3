"""The two steps every repository and service repeats: add a row (with its generated values) and turn a
missing row into the reference's 404."""

from __future__ import annotations

from typing import TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.errors import NotFound

Row = TypeVar("Row")


async def add(session: AsyncSession, row: Row) -> Row:
    """Insert `row` in the session's transaction; flushed, so its generated id and defaults are set."""
    session.add(row)
    await session.flush()
    return row


def get_or_404(row: Row | None, message: str | None = None) -> Row:
    """`row`, or NotFound (the reference's `resource not found` unless `message` says otherwise)."""
    if row is None:
        raise NotFound(message)
    return row
