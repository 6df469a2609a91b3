"""The per-address login rate: an address past its failure limit is paced, never locked out.

Many people share an address (an office behind one NAT): locking every login from it for the window after
one attacker's failures with made-up names locked them all out. Past its limit an address gets one attempt
per interval instead, so its people still sign in (after a short wait) while a guesser is held to that rate.
Kept per process: each process paces its own share of the attempts."""

from __future__ import annotations

import math
import time

MAX_ADDRESSES = 10_000  # addresses remembered; the oldest are dropped first


class AddressPace:
    def __init__(self, interval_seconds: float) -> None:
        self.interval = interval_seconds
        self._last: dict[str, float] = {}

    def wait_for(self, address: str) -> int:
        """0 when `address` may attempt now (the attempt is counted), else the whole seconds it must wait."""
        now = time.monotonic()
        last = self._last.get(address)
        if last is not None and now - last < self.interval:
            return max(math.ceil(self.interval - (now - last)), 1)
        self._last.pop(address, None)
        self._last[address] = now
        if len(self._last) > MAX_ADDRESSES:
            del self._last[next(iter(self._last))]
        return 0
