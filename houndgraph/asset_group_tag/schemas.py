"""Wire shapes of privilege zones (reference/behaviour.md §3).

Nullable fields (`position`, `require_certify`, `analysis_enabled`, `glyph`, `disabled_at`, ...) are plain
values or null, as the reference writes them (its null types marshal to the value) and its UI reads them;
the upstream spec draws them as `{int32, valid}` objects, which no BloodHound server sends.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from houndgraph.kit.nullable import or_zero
from houndgraph.models import AssetGroupHistory, AssetGroupTag, AssetGroupTagSelector, AssetGroupTagSelectorNode


class Body(BaseModel):
    """Request bodies: unknown fields are ignored, as Go's decoder does; given fields are remembered."""

    model_config = ConfigDict(extra="ignore")


class TagCounts(BaseModel):
    selectors: int
    custom_selectors: int
    default_selectors: int
    disabled_selectors: int
    members: int


class TagView(BaseModel):
    id: int
    type: int
    kind_id: int
    name: str
    description: str
    created_at: datetime
    created_by: str
    updated_at: datetime
    updated_by: str
    deleted_at: datetime | None
    deleted_by: str | None
    position: int | None
    require_certify: bool | None
    analysis_enabled: bool | None
    glyph: str | None
    counts: TagCounts | None = Field(default=None, exclude_if=lambda value: value is None)

    @classmethod
    def of(cls, tag: AssetGroupTag, *, counts: TagCounts | None = None,
           names: dict[str, str] | None = None) -> TagView:
        names = names or {}
        return cls(
            id=tag.id, type=tag.type, kind_id=tag.kind_id or 0, name=tag.name, description=tag.description,
            created_at=or_zero(tag.created_at), created_by=names.get(tag.created_by or "", tag.created_by or ""),
            updated_at=or_zero(tag.updated_at), updated_by=names.get(tag.updated_by or "", tag.updated_by or ""),
            deleted_at=tag.deleted_at, deleted_by=tag.deleted_by, position=tag.position,
            require_certify=tag.require_certify, analysis_enabled=tag.analysis_enabled, glyph=tag.glyph,
            counts=counts)


class TagsData(BaseModel):
    tags: list[TagView]


class TagData(BaseModel):
    tag: TagView


class TagCreate(Body):
    """`POST /api/v2/asset-group-tags` (the reference's enterprise route)."""

    name: StrictStr
    type: StrictInt
    description: StrictStr = ""
    position: StrictInt | None = None
    require_certify: StrictBool | None = None
    glyph: StrictStr | None = None


class TagUpdate(Body):
    """Op 9: every field optional; only the given ones change."""

    name: StrictStr | None = None
    description: StrictStr | None = None
    position: StrictInt | None = None
    require_certify: StrictBool | None = None
    analysis_enabled: StrictBool | None = None
    glyph: StrictStr | None = None


class SeedBody(Body):
    type: StrictInt
    value: StrictStr


class SeedView(BaseModel):
    selector_id: int
    type: int
    value: str


class SelectorCounts(BaseModel):
    members: int


class SelectorView(BaseModel):
    id: int
    asset_group_tag_id: int
    name: str
    description: str
    auto_certify: int
    is_default: bool
    allow_disable: bool
    seeds: list[SeedView]
    created_at: datetime
    created_by: str
    updated_at: datetime
    updated_by: str
    disabled_at: datetime | None
    disabled_by: str | None
    counts: SelectorCounts | None = Field(default=None, exclude_if=lambda value: value is None)

    @classmethod
    def of(cls, selector: AssetGroupTagSelector, *, members: int | None = None) -> SelectorView:
        return cls(
            id=selector.id, asset_group_tag_id=selector.asset_group_tag_id, name=selector.name,
            description=selector.description, auto_certify=selector.auto_certify, is_default=selector.is_default,
            allow_disable=selector.allow_disable,
            seeds=[SeedView(selector_id=selector.id, type=seed.type, value=seed.value) for seed in selector.seeds],
            created_at=or_zero(selector.created_at), created_by=selector.created_by or "",
            updated_at=or_zero(selector.updated_at),
            updated_by=selector.updated_by or "", disabled_at=selector.disabled_at, disabled_by=selector.disabled_by,
            counts=None if members is None else SelectorCounts(members=members))


class SelectorsData(BaseModel):
    selectors: list[SelectorView]


class SelectorData(BaseModel):
    selector: SelectorView


class SelectorCreate(Body):
    name: StrictStr
    description: StrictStr = ""
    seeds: list[SeedBody]
    # The reference's UI sends null for "off".
    auto_certify: StrictInt | None = 0


class SelectorUpdate(Body):
    """Op 7: only the given fields change."""

    name: StrictStr | None = None
    description: StrictStr | None = None
    seeds: list[SeedBody] | None = None
    auto_certify: StrictInt | None = None
    disabled: StrictBool | None = None


class MemberView(BaseModel):
    id: int
    object_id: str
    environment_id: str
    primary_kind: str
    name: str
    asset_group_tag_id: int | None = Field(default=None, exclude_if=lambda value: value is None)
    source: int | None = Field(default=None, exclude_if=lambda value: value is None)
    properties: dict[str, Any] | None = Field(default=None, exclude_if=lambda value: value is None)

    @classmethod
    def of(cls, row: AssetGroupTagSelectorNode, tag_id: int | None = None, *,
           source: int | None = None) -> MemberView:
        return cls(id=row.node_id, object_id=row.node_object_id, environment_id=row.node_environment_id,
                   primary_kind=row.node_primary_kind, name=row.node_name, asset_group_tag_id=tag_id, source=source)


class MembersData(BaseModel):
    members: list[MemberView]


class MemberInfo(MemberView):
    selectors: list[SelectorView]


class MemberData(BaseModel):
    member: MemberInfo


class MemberCounts(BaseModel):
    total_count: int
    counts: dict[str, int]


class PreviewRequest(Body):
    seeds: list[SeedBody]
    expansion: StrictInt = 1


class SearchRequest(Body):
    query: StrictStr = ""
    tag_type: StrictInt = 0
    asset_group_tag_id: StrictInt | None = None


class SearchData(BaseModel):
    tags: list[TagView]
    selectors: list[SelectorView]
    members: list[MemberView]


class CertifyRequest(Body):
    member_ids: list[StrictInt] = Field(min_length=1)
    action: StrictInt
    note: StrictStr = ""


class CertificationView(BaseModel):
    id: int
    object_id: str
    environment_id: str
    primary_kind: str
    name: str
    asset_group_tag_id: int
    created_at: datetime
    certified_by: str
    certified: int


class CertificationsData(BaseModel):
    members: list[CertificationView]


class HistoryView(BaseModel):
    id: int
    created_at: datetime
    actor: str
    email: str | None
    action: str
    target: str
    asset_group_tag_id: int
    environment_id: str | None
    note: str | None

    @classmethod
    def of(cls, row: AssetGroupHistory) -> HistoryView:
        return cls(id=row.id, created_at=row.created_at, actor=row.actor, email=row.email, action=row.action,
                   target=row.target, asset_group_tag_id=row.asset_group_tag_id,
                   environment_id=row.environment_id or None, note=row.note or None)


class HistoryData(BaseModel):
    records: list[HistoryView]
