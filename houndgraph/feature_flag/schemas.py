from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from houndgraph.kit.nullable import SqlNullTime
from houndgraph.models import FeatureFlag


class FeatureFlagView(BaseModel):
    id: int
    created_at: datetime
    updated_at: datetime
    deleted_at: SqlNullTime = SqlNullTime()
    key: str
    name: str
    description: str
    enabled: bool
    user_updatable: bool

    @classmethod
    def of(cls, flag: FeatureFlag) -> FeatureFlagView:
        return cls(id=flag.id, created_at=flag.created_at, updated_at=flag.updated_at, key=flag.key,
                   name=flag.name, description=flag.description, enabled=flag.enabled,
                   user_updatable=flag.user_updatable)


class FeatureFlagToggled(BaseModel):
    enabled: bool
