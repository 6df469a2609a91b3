from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import BaseModel, Field

from houndgraph.kit.nullable import SqlNullTime, or_zero
from houndgraph.models import AuthSecret, Permission, Role, User


class PermissionView(BaseModel):
    id: int
    authority: str
    name: str
    created_at: datetime
    updated_at: datetime
    deleted_at: SqlNullTime = SqlNullTime()

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
    deleted_at: SqlNullTime = SqlNullTime()

    @classmethod
    def of(cls, role: Role) -> RoleView:
        return cls(id=role.id, name=role.name, description=role.description,
                   permissions=[PermissionView.of(p) for p in role.permissions],
                   created_at=role.created_at, updated_at=role.updated_at)


class AuthSecretView(BaseModel):
    """A password's metadata (`model.AuthSecret`): never the digest nor the TOTP secret."""

    id: int
    digest_method: str
    expires_at: datetime
    totp_activated: bool
    created_at: datetime
    updated_at: datetime
    deleted_at: SqlNullTime = SqlNullTime()

    @classmethod
    def of(cls, secret: AuthSecret) -> AuthSecretView:
        return cls(id=secret.id, digest_method=secret.digest_method, expires_at=secret.expires_at,
                   totp_activated=secret.totp_activated, created_at=secret.created_at, updated_at=secret.updated_at)


class UserView(BaseModel):
    """A user as `/self` and `/bloodhound-users` show it; never a secret's digest. `AuthSecret` keeps the
    reference's capital letters (its Go field had no JSON tag) and is null for a user without a password (SSO).
    Without environment-targeted access control every user sees all environments."""

    id: uuid.UUID
    principal_name: str
    email_address: str | None
    first_name: str | None
    last_name: str | None
    is_disabled: bool
    eula_accepted: bool
    last_login: datetime
    sso_provider_id: int | None = None
    AuthSecret: AuthSecretView | None = None
    roles: list[RoleView]
    all_environments: bool = True
    environment_targeted_access_control: list[dict[str, str]] = []
    created_at: datetime
    updated_at: datetime
    deleted_at: SqlNullTime = SqlNullTime()

    @classmethod
    def of(cls, user: User) -> UserView:
        secret = user.auth_secret
        return cls(id=user.id, principal_name=user.principal_name, email_address=user.email_address,
                   first_name=user.first_name, last_name=user.last_name,
                   is_disabled=user.is_disabled, eula_accepted=user.eula_accepted, last_login=or_zero(user.last_login),
                   sso_provider_id=user.sso_provider_id, roles=[RoleView.of(r) for r in user.roles],
                   AuthSecret=AuthSecretView.of(secret) if secret is not None else None,
                   created_at=user.created_at, updated_at=user.updated_at)


class MinimalUserView(BaseModel):
    """`model.users-minimal`: what any user may know of another (to share a saved query with them)."""

    id: uuid.UUID
    first_name: str | None
    last_name: str | None
    email: str

    @classmethod
    def of(cls, user: User) -> MinimalUserView:
        return cls(id=user.id, first_name=user.first_name, last_name=user.last_name,
                   email=user.email_address or "")


class MinimalUserList(BaseModel):
    users: list[MinimalUserView]


class UserList(BaseModel):
    users: list[UserView]


class RoleList(BaseModel):
    roles: list[RoleView]


class PermissionList(BaseModel):
    permissions: list[PermissionView]


class UserCreate(BaseModel):
    """`api.requests.user.update` + `api.requests.user.set-secret`. Without a secret the user cannot log in
    with a password (API tokens still work)."""

    principal: str = Field(min_length=1, max_length=255)
    first_name: str = Field(default="", max_length=255)
    last_name: str = Field(default="", max_length=255)
    email_address: str = Field(default="", max_length=255)
    roles: list[int] = []
    is_disabled: bool = False
    secret: str = Field(default="", max_length=1024)
    needs_password_reset: bool = False


class UserUpdate(BaseModel):
    """PATCH: a field that is absent, null or (as in the reference) an empty string is left unchanged."""

    principal: str | None = Field(default=None, max_length=255)
    first_name: str | None = Field(default=None, max_length=255)
    last_name: str | None = Field(default=None, max_length=255)
    email_address: str | None = Field(default=None, max_length=255)
    roles: list[int] | None = None
    is_disabled: bool | None = None


class SecretUpdate(BaseModel):
    """`api.requests.user.set-secret`; `current_secret` is required when users change their own."""

    secret: str = Field(min_length=1, max_length=1024)
    current_secret: str = Field(default="", max_length=1024)
    needs_password_reset: bool = False
