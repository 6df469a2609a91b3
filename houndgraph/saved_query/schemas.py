from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from houndgraph.kit.nullable import SqlNullTime
from houndgraph.models import SavedQuery, SavedQueryPermission


class SavedQueryView(BaseModel):
    """`model.saved-query`."""

    id: int
    user_id: str
    name: str
    query: str
    description: str
    created_at: datetime
    updated_at: datetime
    deleted_at: SqlNullTime = SqlNullTime()

    @classmethod
    def of(cls, row: SavedQuery) -> SavedQueryView:
        return cls(id=row.id, user_id=str(row.user_id), name=row.name, query=row.query,
                   description=row.description, created_at=row.created_at, updated_at=row.updated_at)


    @staticmethod
    def json_of(row: tuple[Any, ...]) -> dict[str, Any]:
        """A row of `repository.LISTED_COLUMNS` as this model writes it, for orjson with `OPT_UTC_Z` (which
        writes times as pydantic does): a long list costs a fraction of validating and dumping a model per row."""
        query_id, user_id, name, query, description, created_at, updated_at = row
        return {"id": query_id, "user_id": str(user_id), "name": name, "query": query, "description": description,
                "created_at": created_at, "updated_at": updated_at, "deleted_at": NO_DELETION}


# `deleted_at` of a listed query (deleted ones are gone), as SqlNullTime writes it.
NO_DELETION: dict[str, Any] = SqlNullTime().model_dump(mode="json")


class ScopedSavedQueryView(SavedQueryView):
    """A list entry under `scope=`: which of the asked scopes brought it."""

    scope: str

    @classmethod
    def scoped(cls, row: SavedQuery, scope: str) -> ScopedSavedQueryView:
        return cls(**SavedQueryView.of(row).model_dump(), scope=scope)


class SavedQueryRequest(BaseModel):
    """Create and update body. On update an empty field is left unchanged, as in the reference."""

    name: str = ""
    query: str = ""
    description: str = ""


class PermissionRequest(BaseModel):
    """`PUT .../permissions`: share to users, or make public (`public: true`) or private (neither)."""

    user_ids: list[uuid.UUID] = []
    public: bool = False


class UnshareRequest(BaseModel):
    user_ids: list[uuid.UUID] = []


class PermissionView(BaseModel):
    """One sharing row as the reference writes it (`model.SavedQueriesPermissions`)."""

    id: int
    query_id: int
    shared_to_user_id: uuid.UUID | None
    public: bool
    created_at: datetime
    updated_at: datetime
    deleted_at: SqlNullTime = SqlNullTime()

    @classmethod
    def of(cls, row: SavedQueryPermission) -> PermissionView:
        return cls(id=row.id, query_id=row.query_id, shared_to_user_id=row.shared_to_user_id,
                   public=row.public, created_at=row.created_at, updated_at=row.updated_at)


class QueryPermissionsView(BaseModel):
    """`GET .../permissions`: the user list is empty when the query is public."""

    query_id: int
    public: bool
    shared_to_user_ids: list[uuid.UUID]


class SavedQueryExport(BaseModel):
    """One query as a file (GET /saved-queries/{id}/export), the format the import reads back."""

    query: str
    name: str
    description: str
