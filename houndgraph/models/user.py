from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import Boolean, Column, DateTime, ForeignKey, String, Table, Uuid
from sqlalchemy.orm import Mapped, mapped_column, relationship

from houndgraph.models.auth_secret import AuthSecret
from houndgraph.models.base import Base, Timestamps
from houndgraph.models.role import Role

users_roles = Table(
    "users_roles",
    Base.metadata,
    Column("user_id", ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    Column("role_id", ForeignKey("roles.id", ondelete="CASCADE"), primary_key=True),
)


class User(Timestamps, Base):
    __tablename__ = "users"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    principal_name: Mapped[str] = mapped_column(String(255), nullable=False, unique=True)
    email_address: Mapped[str | None] = mapped_column(String(255), unique=True)
    first_name: Mapped[str | None] = mapped_column(String(255))
    last_name: Mapped[str | None] = mapped_column(String(255))
    is_disabled: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    eula_accepted: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    last_login: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # The SSO provider the user logs in with (none: a password or API tokens only).
    sso_provider_id: Mapped[int | None] = mapped_column(ForeignKey("sso_providers.id", ondelete="SET NULL"),
                                                        index=True)
    roles: Mapped[list[Role]] = relationship(secondary=users_roles, lazy="selectin", order_by=Role.id)
    # Read-only here: the secret is written through its own table (user/repository.py).
    auth_secret: Mapped[AuthSecret | None] = relationship(lazy="selectin", viewonly=True, uselist=False)
