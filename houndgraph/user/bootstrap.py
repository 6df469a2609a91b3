"""The first administrator, created at first start."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy.orm import Session

from houndgraph.auth.passwords import hash_password, random_password
from houndgraph.auth.permissions import ROLE_ADMINISTRATOR
from houndgraph.models import User
from houndgraph.user import repository

ADMIN_PRINCIPAL = "admin"
PASSWORD_LIFETIME = timedelta(days=90)


@dataclass(frozen=True, slots=True)
class BootstrapResult:
    created: bool
    generated_password: str | None = None


def ensure_admin(session: Session, configured_password: str | None) -> BootstrapResult:
    """Create `admin` (role Administrator) unless it exists. Without a configured password a random one
    is generated, returned to be printed once, and marked to be changed at first login."""
    if repository.user_by_principal(session, ADMIN_PRINCIPAL) is not None:
        return BootstrapResult(created=False)
    role = repository.role_by_name(session, ROLE_ADMINISTRATOR)
    assert role is not None, "migrations seed the Administrator role"
    user = repository.add_user(session, User(principal_name=ADMIN_PRINCIPAL, first_name="Houndgraph",
                                             last_name="Admin", email_address=None, roles=[role],
                                             eula_accepted=True))
    password = configured_password or random_password()
    now = datetime.now(UTC)
    repository.set_secret(session, user.id, hash_password(password), now + PASSWORD_LIFETIME,
                          must_change=configured_password is None)
    return BootstrapResult(created=True, generated_password=None if configured_password else password)
