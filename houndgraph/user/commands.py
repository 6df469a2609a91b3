"""User management from the shell (`houndgraph user ...`). Synchronous, on the CLI's own session; the
caller commits. The rules are the API's: unique principal and email, one known role, strong passwords."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.orm import Session

from houndgraph.auth.passwords import hash_password
from houndgraph.models import User
from houndgraph.settings import check_password_strength
from houndgraph.user import repository
from houndgraph.user.bootstrap import PASSWORD_LIFETIME
from houndgraph.user.service import EMAIL_TAKEN, PRINCIPAL_TAKEN


class UserCommandError(Exception):
    """A request the command refuses; the message is shown to the operator as is."""


def _user(session: Session, principal: str) -> User:
    user = repository.user_by_principal(session, principal)
    if user is None:
        raise UserCommandError(f"no user named {principal!r}")
    return user


def _set_password(session: Session, user: User, password: str, must_change: bool) -> None:
    # The CLI has no request to read `auth.password_expiration_window` through; it uses the default window.
    repository.set_secret(session, user.id, hash_password(password), datetime.now(UTC) + PASSWORD_LIFETIME,
                          must_change=must_change)


def create_user(session: Session, principal: str, password: str, *, role: str, email: str | None = None,
                first_name: str | None = None, last_name: str | None = None, must_change: bool = False) -> User:
    check_password_strength(password)
    if repository.user_by_principal(session, principal) is not None:
        raise UserCommandError(PRINCIPAL_TAKEN)
    if email and repository.email_in_use_sync(session, email):
        raise UserCommandError(EMAIL_TAKEN)
    role_row = repository.role_by_name(session, role)
    if role_row is None:
        raise UserCommandError(f"no role named {role!r}")
    user = repository.add_user(session, User(principal_name=principal, email_address=email or None,
                                             first_name=first_name or None, last_name=last_name or None,
                                             roles=[role_row], eula_accepted=True))
    _set_password(session, user, password, must_change)
    return user


def reset_password(session: Session, principal: str, password: str, *, must_change: bool) -> User:
    check_password_strength(password)
    user = _user(session, principal)
    _set_password(session, user, password, must_change)
    return user


def disable_user(session: Session, principal: str) -> User:
    """Disabled at once: sessions end now, and API tokens are refused while the user stays disabled."""
    user = _user(session, principal)
    user.is_disabled = True
    repository.end_sessions_sync(session, user.id)
    session.flush()
    return user
