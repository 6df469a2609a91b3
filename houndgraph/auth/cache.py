"""What a worker process remembers of the credentials it has checked: sessions and API tokens, with the
caller's permissions, so that a request with a known credential costs no look-up in PostgreSQL.

Everything held is valid for one cache generation (migration 0017): a counter that triggers move forward on
every change to sessions, tokens, users, roles, permissions, clients and configuration, whoever writes it
(this process, another worker, the CLI), once per transaction and at its commit (migration 0020), so that
the new number and the changed rows become visible together. Each request reads the counter in its first
statement (the one that sets its deadline); when it moved, the cache is emptied before it is asked. A logout,
a deleted token or a disabled user is therefore refused by every process from the next transaction on, with
no waiting time.
Time-bound facts (a session's expiry) are checked on every use. The user as `/self` shows it is kept too:
since migration 0023 any change of a user row moves the generation. So are the answers of a few routes that
read nothing else (the configuration, the minimal user list; users added move it too since migration 0024).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Hashable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from houndgraph.auth.context import AuthContext

# Beyond this many credentials the cache starts again (a bound on memory, not an expected size).
MAX_ENTRIES = 10_000
# A token's `last_access` is written at most this often per process: an UPDATE and a WAL flush per signed
# request cost more than the request itself, and the token list shows the time to the second at best.
TOUCH_INTERVAL_SECONDS = 1.0

Entries = TypeVar("Entries", bound=dict[Any, Any])


@dataclass(frozen=True, slots=True)
class KnownSession:
    user_id: uuid.UUID
    expires_at: datetime
    context: AuthContext


@dataclass(frozen=True, slots=True)
class BearerClaims:
    """What a session JWT whose signature has been checked says; it holds whatever the database says."""

    session_id: int
    user_id: uuid.UUID
    expires: int  # seconds since the epoch


@dataclass(frozen=True, slots=True)
class KnownToken:
    key: str
    context: AuthContext
    expires_at: datetime | None = None


@dataclass(slots=True)
class AuthCache:
    generation: int | None = None
    sessions: dict[int, KnownSession] = field(default_factory=dict)
    tokens: dict[uuid.UUID, KnownToken] = field(default_factory=dict)
    touched: dict[uuid.UUID, float] = field(default_factory=dict)
    # Answers of routes that read only rows whose every change moves the generation (`generation_cached`),
    # and the user as `/self` shows it (`service.self_view`).
    answers: dict[Hashable, Any] = field(default_factory=dict)
    # Decoding a JWT (signature, claims) costs more than the rest of authentication: once per token string.
    # Not tied to the generation: a signature stays valid; the session it names is checked at each use.
    claims: dict[str, BearerClaims] = field(default_factory=dict)

    def _current(self, generation: int | None) -> bool:
        """Whether entries may be used (and stored) at `generation`; empties the cache when it moved on.
        A request that began before the newest generation seen neither uses nor stores anything."""
        if generation is None:
            return False
        if self.generation is None or generation > self.generation:
            self.sessions.clear()
            self.tokens.clear()
            self.answers.clear()
            self.generation = generation
        return generation == self.generation

    def session(self, generation: int | None, session_id: int) -> KnownSession | None:
        return self.sessions.get(session_id) if self._current(generation) else None

    def remember_session(self, generation: int | None, session_id: int, known: KnownSession) -> None:
        if self._current(generation):
            self._bound(self.sessions)[session_id] = known

    def token(self, generation: int | None, token_id: uuid.UUID) -> KnownToken | None:
        return self.tokens.get(token_id) if self._current(generation) else None

    def remember_token(self, generation: int | None, token_id: uuid.UUID, known: KnownToken) -> None:
        if self._current(generation):
            self._bound(self.tokens)[token_id] = known

    def answer(self, generation: int | None, key: Hashable) -> Any | None:
        return self.answers.get(key) if self._current(generation) else None

    def remember_answer(self, generation: int | None, key: Hashable, answer: Any) -> None:
        if self._current(generation):
            self._bound(self.answers)[key] = answer

    def bearer_claims(self, token: str) -> BearerClaims | None:
        return self.claims.get(token)

    def remember_claims(self, token: str, claims: BearerClaims) -> None:
        self._bound(self.claims)[token] = claims

    def should_touch(self, token_id: uuid.UUID) -> bool:
        """Whether this request should record the token's last access (and, if so, notes that it does)."""
        now = time.monotonic()
        if now - self.touched.get(token_id, float("-inf")) < TOUCH_INTERVAL_SECONDS:
            return False
        self._bound(self.touched)[token_id] = now
        return True

    @staticmethod
    def _bound(entries: Entries) -> Entries:
        if len(entries) >= MAX_ENTRIES:
            entries.clear()
        return entries
