"""The per-address login rate: an address past its failure limit is paced, never locked out.

Many people share an address (an office behind one NAT): locking every login from it for the window after
one attacker's failures with made-up names locked them all out. Past its limit an address gets one attempt
per interval instead, so its people still sign in (after a short wait) while a guesser is held to that rate.

The pace is kept in PostgreSQL (`login_address_pace`), taken in the login's own transaction: kept in each
process's memory, an address had one attempt per interval per process, and a flood spread over the workers
got that many times the rate. No connection more: the login's throttle check already holds one.

A process remembers when an address it refused may try again: a flood's repeated attempts inside the interval
are refused from that memory, before any database work (a transaction, three statements and an audit row each,
which a flood of refusals paid in full). Only the first refusal of an interval is recorded; the pace itself
stays in PostgreSQL, and no attempt is let through that the database would refuse."""

from __future__ import annotations

import math
import time

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.auth import repository

# Refused addresses remembered at most: past it, those whose wait is over are forgotten (a flood from many
# addresses cannot grow the memory without bound; forgetting one costs only its next refusal's database work).
REMEMBERED_ADDRESSES = 10_000


class AddressPace:
    def __init__(self, interval_seconds: float) -> None:
        self.interval = interval_seconds
        self._refused_until: dict[str, float] = {}  # address -> monotonic time of its next attempt

    async def wait_for(self, session: AsyncSession, address: str) -> int:
        """0 when `address` may attempt now (the attempt is counted, for the whole service), else the whole seconds
        it must wait."""
        wait = await repository.take_paced_attempt(session, address, self.interval)
        if wait <= 0:
            return 0
        self._remember(address, time.monotonic() + wait)
        return max(math.ceil(wait), 1)

    def remembered_wait(self, address: str) -> int:
        """The whole seconds `address` must still wait after this process refused it, or 0 when it does not know
        of a wait (the database decides)."""
        until = self._refused_until.get(address)
        if until is None:
            return 0
        left = until - time.monotonic()
        if left <= 0:
            del self._refused_until[address]
            return 0
        return max(math.ceil(left), 1)

    def _remember(self, address: str, until: float) -> None:
        if len(self._refused_until) >= REMEMBERED_ADDRESSES:
            now = time.monotonic()
            self._refused_until = {known: at for known, at in self._refused_until.items() if at > now}
            if len(self._refused_until) >= REMEMBERED_ADDRESSES:
                self._refused_until.clear()
        self._refused_until[address] = until
