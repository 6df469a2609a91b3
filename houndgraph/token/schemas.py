from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, field_validator

from houndgraph.kit.filters import (
    ID_PREDICATES,
    ORDERED_PREDICATES,
    STRING_PREDICATES,
    FilterColumn,
    as_datetime,
    as_uuid,
)
from houndgraph.kit.nullable import SqlNullTime, or_zero
from houndgraph.kit.query import ListColumns
from houndgraph.kit.sorting import SortKey
from houndgraph.models import AuthToken

# What `GET /api/v2/tokens` accepts. `key` is deliberately not filterable: a key never leaves the
# service after creation, so it should not be guessable through a filter either.
TOKENS = ListColumns(
    sortable=("id", "user_id", "name", "last_access", "created_at", "updated_at"),
    filters={
        "id": FilterColumn(ID_PREDICATES, as_uuid),
        "user_id": FilterColumn(ID_PREDICATES, as_uuid),
        "name": FilterColumn(STRING_PREDICATES),
        "hmac_method": FilterColumn(STRING_PREDICATES),
        "last_access": FilterColumn(ORDERED_PREDICATES, as_datetime),
        "created_at": FilterColumn(ORDERED_PREDICATES, as_datetime),
        "updated_at": FilterColumn(ORDERED_PREDICATES, as_datetime),
    },
    default_sort=(SortKey("created_at"), SortKey("id")),
)


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
