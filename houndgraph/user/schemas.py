from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import BaseModel

from houndgraph.kit.nullable import NullInt32, NullString, NullTime, or_zero
from houndgraph.models import Permission, Role, User


class PermissionView(BaseModel):
    id: int
    authority: str
    name: str
    created_at: datetime
    updated_at: datetime
    deleted_at: NullTime = NullTime()

    @classmethod
    def of(cls, permission: Permission) -> PermissionView:
        return cls(id=permission.id, authority=permission.authority, name=permission.name,
                   created_at=permission.created_at, updated_at=permission.updated_at)


class RoleView(BaseModel):
    id: int
    name: str
    description: str
    permissions: list[PermissionView]
    created_at: datetime
    updated_at: datetime
    deleted_at: NullTime = NullTime()

    @classmethod
    def of(cls, role: Role) -> RoleView:
        return cls(id=role.id, name=role.name, description=role.description,
                   permissions=[PermissionView.of(p) for p in role.permissions],
                   created_at=role.created_at, updated_at=role.updated_at)


class UserView(BaseModel):
    """A user as `/self` and `/bloodhound-users` show it; never a secret."""

    id: uuid.UUID
    principal_name: str
    email_address: NullString
    first_name: NullString
    last_name: NullString
    is_disabled: bool
    eula_accepted: bool
    last_login: datetime
    sso_provider_id: NullInt32 = NullInt32()
    roles: list[RoleView]
    created_at: datetime
    updated_at: datetime
    deleted_at: NullTime = NullTime()

    @classmethod
    def of(cls, user: User) -> UserView:
        return cls(id=user.id, principal_name=user.principal_name, email_address=NullString.of(user.email_address),
                   first_name=NullString.of(user.first_name), last_name=NullString.of(user.last_name),
                   is_disabled=user.is_disabled, eula_accepted=user.eula_accepted, last_login=or_zero(user.last_login),
                   roles=[RoleView.of(r) for r in user.roles], created_at=user.created_at,
                   updated_at=user.updated_at)
