"""The legacy asset group shapes (`model.AssetGroup` and friends) older clients still read."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from houndgraph.kit.nullable import SqlNullTime


class LegacySelector(BaseModel):
    id: int
    asset_group_id: int
    name: str
    selector: str
    system_selector: bool
    created_at: datetime
    updated_at: datetime
    deleted_at: SqlNullTime = SqlNullTime()


class AssetGroupView(BaseModel):
    id: int
    name: str
    tag: str
    system_group: bool
    selectors: list[LegacySelector]
    member_count: int
    created_at: datetime
    updated_at: datetime
    deleted_at: SqlNullTime = SqlNullTime()


class AssetGroupsData(BaseModel):
    asset_groups: list[AssetGroupView]


class LegacyMember(BaseModel):
    asset_group_id: int
    object_id: str
    primary_kind: str
    kinds: list[str]
    environment_id: str
    environment_kind: str
    name: str
    custom_member: bool


class LegacyMembersData(BaseModel):
    members: list[LegacyMember]


class LegacyMemberCounts(BaseModel):
    total_count: int
    counts: dict[str, int]


class SelectorSpec(BaseModel):
    """One entry of `PUT .../selectors`: add or remove an object id under a selector name."""

    model_config = ConfigDict(extra="ignore")

    selector_name: str = ""
    sid: str = ""
    action: str = ""


class UpdatedSelectors(BaseModel):
    added_selectors: list[LegacySelector]
    removed_selectors: list[LegacySelector]


class CustomSelectorCount(BaseModel):
    custom_member_count: int
