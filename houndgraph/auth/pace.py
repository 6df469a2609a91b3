"""The per-address login rate: an address past its failure limit is paced, never locked out.

Many people share an address (an office behind one NAT): locking every login from it for the window after
one attacker's failures with made-up names locked them all out. Past its limit an address gets one attempt
per interval instead, so its people still sign in (after a short wait) while a guesser is held to that rate.

The pace is kept in PostgreSQL (`login_address_pace`), taken in the login's own transaction: kept in each
process's memory, an address had one attempt per interval per process, and a flood spread over the workers
got that many times the rate. No connection more: the login's throttle check already holds one."""

from __future__ import annotations

import math

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.auth import repository


class AddressPace:
    def __init__(self, interval_seconds: float) -> None:
        self.interval = interval_seconds

    async def wait_for(self, session: AsyncSession, address: str) -> int:
        """0 when `address` may attempt now (the attempt is counted, for the whole service), else the whole seconds
        it must wait."""
        wait = await repository.take_paced_attempt(session, address, self.interval)
        return max(math.ceil(wait), 1) if wait > 0 else 0
