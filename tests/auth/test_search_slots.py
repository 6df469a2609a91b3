"""A path finding or search request takes one of its user's graph-query slots and one of the service's search slots
in one statement (`auth.repository.take_query_and_search_slots`), and never the service's while its own is taken:
a request waiting in line for its user's slot holds nothing another user's search needs."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack

from sqlalchemy import text

from houndgraph.auth import repository
from houndgraph.db import Database
from houndgraph.query_slots import QUERY_SLOT_SPACE

OWNER, PER_USER, SEARCHES = 424242, 2, 3
HELD = text("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()")


def test_both_slots_come_together_and_the_services_only_after_the_users(database: Database) -> None:
    async def attempts() -> list[tuple[bool, bool, int]]:
        engine_owner = Database(url=database.url)
        found = []
        try:
            # Each attempt keeps its transaction open, as a running request does, until all have been made.
            async with AsyncExitStack() as requests:
                for _ in range(PER_USER + 1):
                    session = await requests.enter_async_context(engine_owner.session())
                    taken = await repository.take_query_and_search_slots(session, OWNER, PER_USER, SEARCHES)
                    found.append((*taken, int(await session.scalar(HELD) or 0)))
        finally:
            await engine_owner.async_engine.dispose()
            engine_owner.sync_engine.dispose()
        return found

    with database.connect_raw(autocommit=True) as elsewhere:
        elsewhere.execute("SELECT pg_advisory_lock(%s, %s)", (OWNER, QUERY_SLOT_SPACE + 1))  # one of the user's two
        found = asyncio.run(attempts())
    # The first gets the user's free slot and a search slot (two locks); the next find the user's slots taken and
    # hold nothing, though two of the service's three slots are free.
    assert found == [(True, True, 2), (False, False, 0), (False, False, 0)]
