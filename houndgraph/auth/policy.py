"""What the authentication kernel asks of the domains above it.

The kernel imports no domain (they all depend on it): the composition root (`app.py`) hands it, at start,
the answers that live in a domain's data.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession


@dataclass(frozen=True, slots=True)
class AuthPolicy:
    # Whether users' API keys may sign requests now (the `auth.api_tokens` parameter of the configuration);
    # collection clients sign with their tokens whatever it says.
    api_tokens_enabled: Callable[[AsyncSession], Awaitable[bool]]
