from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, field_validator

from houndgraph.kit.nullable import SqlNullTime, or_zero
from houndgraph.models import AuthToken


class TokenCreate(BaseModel):
    token_name: str = Field(default="", max_length=255)
    # Omitted or empty: a token for the caller.
    user_id: uuid.UUID | None = None

    @field_validator("user_id", mode="before")
    @classmethod
    def _empty_is_none(cls, value: Any) -> Any:
        return None if value == "" else value


class TokenView(BaseModel):
    """`model.auth-token` without its key: the key is shown once, by `NewTokenView`."""

    id: uuid.UUID
    user_id: uuid.UUID | None
    name: str | None
    hmac_method: str
    last_access: datetime
    created_at: datetime
    updated_at: datetime
    deleted_at: SqlNullTime = SqlNullTime()

    @classmethod
    def of(cls, token: AuthToken) -> TokenView:
        return cls(id=token.id, user_id=token.user_id, name=token.name,
                   hmac_method=token.hmac_method, last_access=or_zero(token.last_access),
                   created_at=token.created_at, updated_at=token.updated_at)


class NewTokenView(TokenView):
    key: str

    @classmethod
    def of(cls, token: AuthToken) -> NewTokenView:
        return cls(**TokenView.of(token).model_dump(), key=token.key)


class TokenList(BaseModel):
    tokens: list[TokenView]
