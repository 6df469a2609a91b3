"""SQL of users (synchronous variants serve the CLI and start-up)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from houndgraph.models import AuthSecret, Role, User


def role_by_name(session: Session, name: str) -> Role | None:
    return session.scalar(select(Role).where(Role.name == name))


def user_by_principal(session: Session, principal_name: str) -> User | None:
    return session.scalar(select(User).where(func.lower(User.principal_name) == principal_name.lower()))


def add_user(session: Session, user: User) -> User:
    session.add(user)
    session.flush()
    return user


def set_secret(session: Session, user_id: uuid.UUID, digest: str, expires_at: datetime,
               must_change: bool) -> None:
    row = session.scalar(select(AuthSecret).where(AuthSecret.user_id == user_id))
    if row is None:
        session.add(AuthSecret(user_id=user_id, digest=digest, expires_at=expires_at, must_change=must_change))
    else:
        row.digest, row.expires_at, row.must_change = digest, expires_at, must_change
    session.flush()
