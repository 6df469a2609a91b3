"""Password hashing with argon2id; a fixed dummy digest keeps failed logins as slow as good ones."""

from __future__ import annotations

import secrets
import string

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from houndgraph.settings import Settings

_hasher = PasswordHasher()
_dummy_digest = _hasher.hash(secrets.token_urlsafe(24))


def hasher_for(settings: Settings) -> PasswordHasher:
    return PasswordHasher(time_cost=settings.password_hash_time_cost, memory_cost=settings.password_hash_memory_kib,
                          parallelism=settings.password_hash_parallelism)


def configure(settings: Settings) -> None:
    """Hash with the settings' cost from now on; the dummy digest follows, so unknown users still cost the same."""
    global _hasher, _dummy_digest
    _hasher = hasher_for(settings)
    _dummy_digest = _hasher.hash(secrets.token_urlsafe(24))


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(digest: str | None, password: str) -> bool:
    """Constant work whether or not there is a digest: an unknown user costs one argon2 verify too."""
    try:
        return _hasher.verify(digest or _dummy_digest, password) and digest is not None
    except (VerificationError, InvalidHashError):
        return False


def random_password(length: int = 24) -> str:
    """A password that passes the strength rules: every character class, drawn from `secrets`."""
    classes = [string.ascii_lowercase, string.ascii_uppercase, string.digits, "!#%+-.=@^_~"]
    alphabet = "".join(classes)
    while True:
        candidate = "".join(secrets.choice(alphabet) for _ in range(length))
        if all(any(c in group for c in candidate) for group in classes):
            return candidate
