from __future__ import annotations

from sqlalchemy import Column, ForeignKey, Integer, String, Table, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from houndgraph.models.base import Base, Timestamps

roles_permissions = Table(
    "roles_permissions",
    Base.metadata,
    Column("role_id", ForeignKey("roles.id", ondelete="CASCADE"), primary_key=True),
    Column("permission_id", ForeignKey("permissions.id", ondelete="CASCADE"), primary_key=True),
)


class Permission(Timestamps, Base):
    __tablename__ = "permissions"
    __table_args__ = (UniqueConstraint("authority", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    authority: Mapped[str] = mapped_column(String(64), nullable=False)
    name: Mapped[str] = mapped_column(String(64), nullable=False)


class Role(Timestamps, Base):
    __tablename__ = "roles"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    description: Mapped[str] = mapped_column(String, nullable=False, default="")
    permissions: Mapped[list[Permission]] = relationship(
        secondary=roles_permissions, lazy="selectin", order_by=Permission.id
    )
