"""Who is calling: the authenticated user and what they may do."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from houndgraph.auth.permissions import ROLE_ADMINISTRATOR, P, PermissionKey
from houndgraph.models import Client, User


@dataclass(frozen=True, slots=True)
class AuthContext:
    user_id: uuid.UUID
    principal_name: str
    permissions: frozenset[PermissionKey]
    role_names: frozenset[str]
    session_id: int | None = None
    token_id: uuid.UUID | None = None
    # Set when a collection client signed the request: it holds no permission and may call only the
    # client routes (`user_id` then carries the client's id, `principal_name` its name).
    client_id: uuid.UUID | None = None

    @classmethod
    def for_user(cls, user: User, *, session_id: int | None = None,
                 token_id: uuid.UUID | None = None) -> AuthContext:
        permissions = frozenset(
            PermissionKey(p.authority, p.name) for role in user.roles for p in role.permissions
        )
        return cls(user.id, user.principal_name, permissions, frozenset(r.name for r in user.roles),
                   session_id, token_id)

    @classmethod
    def for_client(cls, client: Client, *, token_id: uuid.UUID) -> AuthContext:
        return cls(client.id, client.name, frozenset(), frozenset(), None, token_id, client.id)

    @property
    def is_client(self) -> bool:
        return self.client_id is not None

    def has(self, permission: P) -> bool:
        return permission.value in self.permissions

    @property
    def is_administrator(self) -> bool:
        return ROLE_ADMINISTRATOR in self.role_names
