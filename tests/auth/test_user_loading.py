"""`user_by_id` loads a user's roles and permissions in one joined statement: the same user, roles and
permissions, in the same order, as the relationships' own loading."""

from __future__ import annotations

import asyncio

import httpx
from sqlalchemy import select

from houndgraph.auth import repository
from houndgraph.db import Database
from houndgraph.models import User
from houndgraph.user.schemas import UserView
from tests.factories import create_user


def test_the_joined_load_gives_what_the_relationships_load(database: Database, admin: httpx.Client) -> None:
    create_user(admin, "Read-Only")

    async def views() -> list[tuple[str, str]]:
        engine_owner = Database(url=database.url)
        try:
            async with engine_owner.session() as session:
                ids = list(await session.scalars(select(User.id).order_by(User.id)))
            compared = []
            for user_id in ids:
                async with engine_owner.session() as plain:
                    by_relationships = await plain.get(User, user_id)
                    assert by_relationships is not None
                    expected = UserView.of(by_relationships).model_dump_json()
                async with engine_owner.session() as joined:
                    found = await repository.user_by_id(joined, user_id)
                    assert found is not None
                    compared.append((expected, UserView.of(found).model_dump_json()))
            return compared
        finally:
            await engine_owner.async_engine.dispose()
            engine_owner.sync_engine.dispose()

    compared = asyncio.run(views())
    assert len(compared) >= 2, "the administrator and the user made here"
    assert any('"permissions":[{' in expected for expected, _ in compared), "some user holds permissions"
    for expected, joined in compared:
        assert joined == expected
