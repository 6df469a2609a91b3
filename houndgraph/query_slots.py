"""A per-user cap on graph queries running at once in this process.

A graph query holds a pooled database connection for as long as it runs (up to the request timeout): one
reader sending thirty long queries at once took the whole pool, and everyone else, health checks included,
waited. Past the cap a user's next query is refused at once with 429; the others' are untouched."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterator
from contextlib import contextmanager

from houndgraph.errors import TooManyRequests

TOO_MANY = "too many graph queries running at once for this user; wait for one to finish"


class QuerySlots:
    def __init__(self, per_user: int) -> None:
        self.per_user = per_user
        self._running: Counter[Hashable] = Counter()

    @contextmanager
    def take(self, user: Hashable) -> Iterator[None]:
        if self._running[user] >= self.per_user:
            raise TooManyRequests(TOO_MANY, headers={"Retry-After": "1"})
        self._running[user] += 1
        try:
            yield
        finally:
            self._running[user] -= 1
            if not self._running[user]:
                del self._running[user]
