"""Password hashing with argon2id; a fixed dummy digest keeps failed logins as slow as good ones."""

from __future__ import annotations

import asyncio
import secrets
import string
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from houndgraph.kit.offload import lower_thread_priority
from houndgraph.settings import Settings

_hasher = PasswordHasher()
# What an unknown user's password is checked against, made at the first such check: a hash at the full cost
# made on import was a quarter of a second of every process's start.
_dummy_digest: str | None = None


def hasher_for(settings: Settings) -> PasswordHasher:
    return PasswordHasher(time_cost=settings.password_hash_time_cost, memory_cost=settings.password_hash_memory_kib,
                          parallelism=settings.password_hash_parallelism)


def configure(settings: Settings) -> None:
    """Hash with the settings' cost from now on; the dummy digest follows, so unknown users still cost the same."""
    global _hasher, _dummy_digest
    _hasher = hasher_for(settings)
    _dummy_digest = None


def _dummy() -> str:
    global _dummy_digest
    if _dummy_digest is None:
        _dummy_digest = _hasher.hash(secrets.token_urlsafe(24))
    return _dummy_digest


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(digest: str | None, password: str) -> bool:
    """Constant work whether or not there is a digest: an unknown user costs one argon2 verify too."""
    try:
        return _hasher.verify(digest or _dummy(), password) and digest is not None
    except (VerificationError, InvalidHashError):
        return False


class PasswordPool:
    """Password verification off the event loop, a few at a time (argon2 releases the GIL while it works), at a
    lower CPU priority than the requests' own work: anyone may ask for argon2's CPU without credentials, so a
    login flood gets only what the requests leave over.

    A login flood queues here instead of stalling every other request; past `max_waiting` queued
    verifications a login is refused at once (`PasswordPoolBusy`), so the queue cannot grow without bound, and
    one address may have no more than `per_address` checks queued or running: a flood from one address cannot
    take the queue from everyone else's logins. Created once by the composition root."""

    def __init__(self, workers: int) -> None:
        self._executor = ThreadPoolExecutor(max_workers=max(workers, 1), thread_name_prefix="password-hash",
                                            initializer=lower_thread_priority)
        self.max_waiting = max(workers, 1) * 8
        self.per_address = max(workers, 1)
        self._in_flight = 0
        self._by_address: Counter[str] = Counter()

    def crowded(self, address: str) -> bool:
        """Whether `address` already has as many checks queued or running as it may."""
        return self._by_address[address] >= self.per_address

    async def verify(self, digest: str | None, password: str, address: str = "") -> bool:
        if self._in_flight >= self.max_waiting:
            raise PasswordPoolBusy(BUSY)
        if self.crowded(address):
            raise PasswordPoolBusy(BUSY_ADDRESS)
        self._in_flight += 1
        self._by_address[address] += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, verify_password, digest, password)
        finally:
            self._in_flight -= 1
            self._by_address[address] -= 1
            if not self._by_address[address]:
                del self._by_address[address]

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


BUSY = "too many logins at once; try again shortly"
BUSY_ADDRESS = "too many logins at once from this address; try again shortly"


class PasswordPoolBusy(Exception):
    """More logins are waiting for a password check than the pool accepts (from everyone, or from one address)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def random_password(length: int = 24) -> str:
    """A password that passes the strength rules: every character class, drawn from `secrets`."""
    classes = [string.ascii_lowercase, string.ascii_uppercase, string.digits, "!#%+-.=@^_~"]
    alphabet = "".join(classes)
    while True:
        candidate = "".join(secrets.choice(alphabet) for _ in range(length))
        if all(any(c in group for c in candidate) for group in classes):
            return candidate
