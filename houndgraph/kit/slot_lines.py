"""Waiting in line for one of a few advisory-lock slots (the graph-query caps of `query_slots`).

A request that found every slot taken used to ask again every 50 ms (a long query every 250 ms) until one freed:
each try a statement, so the queries refused at a cap cost the most, forty statements for one 429, and a later
request could take a slot before one that had waited longer. Here a waiter blocks in PostgreSQL on the slot
whose line is shortest, under a lock timeout: PostgreSQL wakes the first of a slot's line when its holder's
transaction ends and hands the lock over at that moment, so a line is served in order, a request arriving
later cannot take the slot from it, and a waiter spends nothing while it waits."""

from __future__ import annotations

import math

import psycopg

# The waiters of each slot read from `pg_locks` (a two-key advisory lock shows its first key, as an unsigned
# number, in `classid` and its second in `objid`); ties go to a slot at random.
WAIT_IN_SHORTEST_LINE = (
    "SET LOCAL lock_timeout = {milliseconds}; "
    "SELECT pg_advisory_xact_lock({first}, {space} + line.slot) FROM ("
    "SELECT slot FROM generate_series(0, {slots} - 1) AS slot ORDER BY ("
    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objsubid = 2 "
    "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
    "AND classid::bigint = {unsigned_first} AND objid::bigint = {space} + slot), random() LIMIT 1) AS line; "
    "SET LOCAL lock_timeout TO DEFAULT"
)


async def wait_in_line(driver: psycopg.AsyncConnection, first_key: int, space: int, slots: int,
                       seconds: float) -> bool:
    """One of the `slots` two-key advisory locks (`first_key`, `space` + slot) for the rest of the transaction,
    waiting up to `seconds` (and no longer than the statement timeout) in the shortest line; False when none came
    in time. After False the transaction is aborted: the caller answers and ends it."""
    milliseconds = max(math.ceil(seconds * 1000), 1)  # 0 would be no limit at all
    statement = WAIT_IN_SHORTEST_LINE.format(milliseconds=milliseconds, first=int(first_key), space=int(space),
                                             slots=int(slots), unsigned_first=int(first_key) & 0xFFFFFFFF)
    try:
        await driver.execute(statement)
    except (psycopg.errors.LockNotAvailable, psycopg.errors.QueryCanceled):
        return False
    return True
