from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

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


class DogTags(BaseModel):
    """`GET /api/v2/dog-tags`: the licence-bound settings of the reference, at the values of a service without
    a licence provider (BloodHound CE): no multi-tier analysis, no environment-targeted access control."""

    multi_tier_analysis: bool = Field(False, serialization_alias="privilege_zones.multi_tier_analysis")
    etac_enabled: bool = Field(False, serialization_alias="etac.enabled")
    tier_limit: int = Field(1, serialization_alias="privilege_zones.tier_limit")
    label_limit: int = Field(10, serialization_alias="privilege_zones.label_limit")
