"""The kind catalogue's process cache: never an id a rollback took back, and a kind another process
created is found."""

from __future__ import annotations

import asyncio
import uuid

import psycopg

from houndgraph.db import Database
from houndgraph.graph.kind_catalogue import KindCatalogue, ensure_kinds, kind_map


def _name(label: str) -> str:
    return f"Probe{label}{uuid.uuid4().hex[:8]}"


def _stored_id(database: Database, name: str) -> int | None:
    with database.connect_raw() as conn:
        row = conn.execute("SELECT id FROM kind WHERE name = %s", (name,)).fetchone()
        return row[0] if row else None


def _kind_map(database: Database) -> dict[str, int]:
    async def read() -> dict[str, int]:
        async with await psycopg.AsyncConnection.connect(database.conninfo) as conn:
            return await kind_map(conn)

    return asyncio.run(read())


def test_a_kind_created_in_a_rolled_back_transaction_is_not_remembered(database: Database) -> None:
    name = _name("RolledBack")
    with database.connect_raw() as conn:
        catalogue = KindCatalogue(conn)
        rolled_back = catalogue.id(name)
        assert catalogue.existing_id(name) == rolled_back
        conn.rollback()
    assert _stored_id(database, name) is None
    assert name not in _kind_map(database)

    with database.connect_raw() as conn:
        created = KindCatalogue(conn).id(name)
        conn.commit()
    assert created != rolled_back
    assert _stored_id(database, name) == created
    assert _kind_map(database)[name] == created


def test_a_kind_committed_elsewhere_is_found_after_the_cache_was_filled(database: Database) -> None:
    before = _kind_map(database)
    name = _name("Elsewhere")
    assert name not in before
    with database.connect_raw() as other:
        other.execute("INSERT INTO kind (name) VALUES (%s)", (name,))
        other.commit()
    kind_id = _stored_id(database, name)
    assert _kind_map(database)[name] == kind_id
    with database.connect_raw() as conn:
        assert KindCatalogue(conn).existing_ids([name, _name("Never")]) == [kind_id]


def test_kinds_read_before_any_write_are_shared_with_later_transactions(database: Database) -> None:
    name = _name("Shared")
    with database.connect_raw() as conn:
        kind_id = KindCatalogue(conn).id(name)
        conn.commit()
    with database.connect_raw() as conn:
        assert KindCatalogue(conn).existing_id(name) == kind_id
    with database.connect_raw() as conn:
        # A later transaction is answered from the cache: no statement, so still no transaction id.
        assert KindCatalogue(conn).id(name) == kind_id
        assert conn.execute("SELECT pg_current_xact_id_if_assigned()").fetchone() == (None,)


def test_a_request_sees_the_kinds_it_created_and_no_one_keeps_them_after_a_rollback(database: Database) -> None:
    name = _name("Request")

    async def create_then_roll_back() -> tuple[dict[str, int], dict[str, int]]:
        async with await psycopg.AsyncConnection.connect(database.conninfo) as conn:
            kinds = await kind_map(conn)
            await ensure_kinds(conn, kinds, [name])
            seen = await kind_map(conn)
            await conn.rollback()
            return kinds, seen

    kinds, seen = asyncio.run(create_then_roll_back())
    assert seen[name] == kinds[name]
    assert name not in _kind_map(database)


def test_each_database_of_a_process_keeps_its_own_kind_ids(database: Database) -> None:
    """A process may reach two databases (a scratch database beside the suite's): a kind cached from one is
    never taken for the other's, where the same name has another id or none yet."""
    from tests.conftest import scratch_database

    first, shared = _name("OnlyHere"), _name("Both")
    with database.connect_raw() as conn:
        KindCatalogue(conn).ids([first, shared])
        conn.commit()
        KindCatalogue(conn).ids([first, shared])  # read again, committed: now in the process cache
        conn.commit()
    with scratch_database(database, "hg_kinds") as scratch:
        with scratch.connect_raw() as conn:
            written = KindCatalogue(conn).id(shared)
            conn.commit()
        assert written == _stored_id(scratch, shared)
        assert _kind_map(scratch)[shared] == written and first not in _kind_map(scratch)
