"""A per-user cap on graph queries running at once, across every process of the service.

A graph query holds a pooled database connection, and PostgreSQL's CPU, for as long as it runs (up to the
request timeout): one reader sending thirty long queries at once took the whole pool, and everyone else,
health checks included, waited. Past the cap a user's next query is refused at once with 429; the others'
are untouched.

The slots are PostgreSQL advisory locks taken in the request's own transaction (`auth.repository.
take_query_slot`), so the cap holds for the whole service however many worker processes share the load (a cap
per process let one user run it times the worker count), needs no connection of its own, and a slot is given
back when the transaction ends, however it ends. A query finding every slot taken waits a moment in line for one
(an automation's short queries through one account take turns; `kit.slot_lines`) before it is refused.

Beside it, a service-wide cap on *long* queries: each of a user's four long queries took a core of PostgreSQL, so
one reader's cross products left the short requests of everyone else (a few milliseconds of CPU each) waiting
for a core; their p99 passed 2 s. What is long cannot be told from the text, so a read first runs under a short
statement timeout (`probe_seconds`); one that is cancelled there is long: it waits for one of the service's
`long_queries` slots (fewer than the cores, so short requests always find one free) and for its user's single
long slot, in line (`kit.slot_lines`), then runs again from the start. The wait counts against the query's own
deadline, less the probe's time (a turn with less left could only spend a core until the deadline): one that
finds no slot by then was refused for room, not stopped in its work, and answers 429 as a query past its user's
cap does (it answered 500, as a query that ran out of time, which told the user to simplify a query that had
never run).
While it runs, a backend of this host (the embedded server, or one on a Unix socket or loopback address) runs at
a nice value 10 higher, so the short requests' backends come first for a core; it is restored after (or, where
the service may not lower a nice value again, the connection is closed rather than pooled). Each server counts
its own slots: reads sent to a read replica take the replica's.

Path finding and search cannot be stopped and queued halfway as a Cypher read is, so the service caps them all:
`searches` at once in the whole service (fewer than the cores, as the long queries), each also counted against
its user's cap; one finding none free waits a moment in line (`patience`) before it is refused with 429. Before,
only the per-user cap held them, and a few users' searches could take every core."""

from __future__ import annotations

import time
import uuid
import zlib
from dataclasses import dataclass, field

from houndgraph.errors import TooManyRequests

TOO_MANY = "too many graph queries running at once for this user; wait for one to finish"
SEARCHES_BUSY = "too many path finding and search requests running at once; try again shortly"
NO_LONG_TURN = "too many long graph queries running at once; try again when one has finished"

# The second keys of the slots' advisory locks (two-key form, apart from every single-key lock of the service),
# named together so that no two spaces overlap: a user's graph-query slots (first key: the user's, then
# `QUERY_SLOT_SPACE + slot`), that user's one long query (first key the user's), the service's long-query
# slots and its path finding and search slots (first key 0). Each space holds up to 65,536 slots.
QUERY_SLOT_SPACE = 0x68670000
# How long a user whose read was found long has their next reads probed at a lower CPU priority, and how many such
# users a process remembers.
LONG_LATELY_SECONDS = 30.0
LONG_READERS_KEPT = 4096
LONG_QUERY_OF_USER = 0x68690000
LONG_QUERY_SLOT_SPACE = 0x68680000
SEARCH_SLOT_SPACE = 0x686A0000


@dataclass(frozen=True, slots=True)
class QuerySlots:
    per_user: int
    # Seconds a query waits for one of its user's slots to free before it is refused.
    patience: float = 2.0
    # Long queries running at once in the whole service (all processes, one database): fewer than its cores.
    long_queries: int = 1
    # Statement seconds a read may run before it counts as long and queues for a long slot.
    probe_seconds: float = 0.5
    # Path finding and search requests running at once in the whole service.
    searches: int = 1
    # The users whose read was found long in this process lately (owner key: when). Their next reads probe at a
    # lower CPU priority, as their long ones run: a reader sending long queries one after another had each run its
    # probe at full priority first, half a second of a core each time, and the other users' requests waited.
    _long_lately: dict[int, float] = field(default_factory=dict, compare=False, repr=False)

    def found_long(self, owner: int) -> None:
        """A read of `owner`'s was found long (its probe ran out)."""
        now = time.monotonic()
        if len(self._long_lately) >= LONG_READERS_KEPT:
            for key, when in list(self._long_lately.items()):
                if now - when > LONG_LATELY_SECONDS:
                    del self._long_lately[key]
        if len(self._long_lately) < LONG_READERS_KEPT or owner in self._long_lately:
            self._long_lately[owner] = now

    def long_lately(self, owner: int) -> bool:
        """Whether a read of `owner`'s was found long in this process within `LONG_LATELY_SECONDS`."""
        when = self._long_lately.get(owner)
        return when is not None and time.monotonic() - when <= LONG_LATELY_SECONDS

    @staticmethod
    def owner_key(user: uuid.UUID) -> int:
        """The user's key in the slots' lock space: a signed 32-bit number (the advisory lock's first key)."""
        return zlib.crc32(user.bytes) - (1 << 31)

    @staticmethod
    def refusal() -> TooManyRequests:
        return TooManyRequests(TOO_MANY, headers={"Retry-After": "1"})

    @staticmethod
    def searches_busy() -> TooManyRequests:
        return TooManyRequests(SEARCHES_BUSY, headers={"Retry-After": "1"})

    @staticmethod
    def no_long_turn() -> TooManyRequests:
        return TooManyRequests(NO_LONG_TURN, headers={"Retry-After": "1"})

