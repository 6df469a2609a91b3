"""The cache generation (migrations 0017, 0020) moves once for every committed transaction that changes
auth data, at its commit: two such transactions changing rows the other also changes both commit, where a
counter row locked from the first change on made PostgreSQL abort one of them as a deadlock."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from houndgraph.db import Database

TOUCH = "UPDATE parameters SET value = value WHERE id = %s"


def generation(database: Database) -> int:
    with database.connect_raw() as conn:
        row = conn.execute("SELECT generation FROM cache_generation").fetchone()
    assert row is not None
    return int(row[0])


def two_parameters(database: Database) -> tuple[int, int]:
    with database.connect_raw() as conn:
        ids = [row[0] for row in conn.execute("SELECT id FROM parameters ORDER BY id LIMIT 2")]
    assert len(ids) == 2, "the migrations write the configuration parameters"
    return ids[0], ids[1]


def test_two_transactions_changing_each_others_rows_both_commit(database: Database) -> None:
    first, second = two_parameters(database)
    before = generation(database)
    one, other = database.connect_raw(), database.connect_raw()
    try:
        for conn in (one, other):
            conn.execute("SET lock_timeout = '20s'")
            conn.commit()
        go = threading.Event()

        def other_changes_the_second() -> None:
            other.execute(TOUCH, (second,))
            go.wait(timeout=20)
            other.commit()

        one.execute(TOUCH, (first,))
        with ThreadPoolExecutor(2) as pool:
            others = pool.submit(other_changes_the_second)
            # `other` now holds the second row (with 0017's triggers it waited for the counter row instead,
            # held by `one`): `one` waits for `other` to commit, and no cycle can form.
            threading.Event().wait(0.3)
            ones = pool.submit(lambda: one.execute(TOUCH, (second,)))
            threading.Event().wait(0.3)
            go.set()
            others.result(timeout=30)
            ones.result(timeout=30)
        one.commit()
    finally:
        one.close()
        other.close()
    assert generation(database) == before + 2


def test_the_generation_moves_once_per_commit_and_with_it(database: Database) -> None:
    first, second = two_parameters(database)
    before = generation(database)
    with database.connect_raw() as writer, database.connect_raw(autocommit=True) as reader:
        for parameter in (first, second, first):
            writer.execute(TOUCH, (parameter,))
        assert reader.execute("SELECT generation FROM cache_generation").fetchone() == (before,), \
            "nothing committed yet: the old number, with the old rows"
        writer.commit()
        assert reader.execute("SELECT generation FROM cache_generation").fetchone() == (before + 1,)
        writer.execute(TOUCH, (second,))
        writer.rollback()
        assert reader.execute("SELECT generation FROM cache_generation").fetchone() == (before + 1,), \
            "a rolled back change moves nothing"


def test_changes_in_autocommit_each_move_it(database: Database) -> None:
    first, _ = two_parameters(database)
    before = generation(database)
    with database.connect_raw(autocommit=True) as conn:
        conn.execute(TOUCH, (first,))
        conn.execute(TOUCH, (first,))
    assert generation(database) == before + 2


