"""Who is calling: the authenticated user and what they may do."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from houndgraph.auth.permissions import ROLE_ADMINISTRATOR, P, PermissionKey
from houndgraph.models import User


@dataclass(frozen=True, slots=True)
class AuthContext:
    user_id: uuid.UUID
    principal_name: str
    permissions: frozenset[PermissionKey]
    role_names: frozenset[str]
    session_id: int | None = None
    token_id: uuid.UUID | None = None

    @classmethod
    def for_user(cls, user: User, *, session_id: int | None = None,
                 token_id: uuid.UUID | None = None) -> AuthContext:
        permissions = frozenset(
            PermissionKey(p.authority, p.name) for role in user.roles for p in role.permissions
        )
        return cls(user.id, user.principal_name, permissions, frozenset(r.name for r in user.roles),
                   session_id, token_id)

    def has(self, permission: P) -> bool:
        return permission.value in self.permissions

    @property
    def is_administrator(self) -> bool:
        return ROLE_ADMINISTRATOR in self.role_names
