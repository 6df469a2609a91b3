"""Tags and selectors: the rules of reference/behaviour.md §3 in the reference's order, and their history.

Membership is computed by analysis (`analysis.zones`); every change here that can move it requests an
analysis run, and the change shows in the graph after that run.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.analysis.zones.model import (
    OWNED_NAME,
    AutoCertify,
    SeedType,
    TagType,
)
from houndgraph.analysis.zones.seeds import check_cypher_seed
from houndgraph.asset_group_tag import history
from houndgraph.asset_group_tag import repository as repo
from houndgraph.asset_group_tag.schemas import (
    SeedBody,
    SelectorCreate,
    SelectorUpdate,
    TagCreate,
    TagUpdate,
)
from houndgraph.auth.context import AuthContext
from houndgraph.datapipe import service as datapipe_service
from houndgraph.errors import ID_MALFORMED, BadRequest, Conflict, Forbidden, NotFound
from houndgraph.graph.cypher.errors import CypherError
from houndgraph.kit.ids import parse_int_id
from houndgraph.kit.repository import get_or_404
from houndgraph.models import AssetGroupTag, AssetGroupTagSelector, AssetGroupTagSelectorSeed
from houndgraph.models.base import utcnow

NAME_PATTERN = re.compile(r"^[a-zA-Z0-9 _]+$")
# The glyphs the UI draws for Tier Zero and Owned: no other zone may look like them.
RESERVED_GLYPHS = frozenset({"gem", "skull"})

NAME_EMPTY = "name can not be empty"
RENAME_DEFAULT = "renaming default tags is forbidden currently"
NAME_CHARACTERS = "asset group tag name must contain only alphanumeric characters, spaces, and underscores"
ONLY_ZONES_CERTIFY = "only zones support modifying require_certify"
ONLY_ZONES_POSITION = "only zones support modifying position"
TIER_ZERO_POSITION = "tier zero position cannot be modified"
POSITION_RANGE = "provided tier position is out of range"
ONLY_ZONES_ANALYSIS = "only zones support modifying analysis_enabled"
TIER_ZERO_ANALYSIS = "tier zero analysis_enabled cannot be modified"
MULTI_TIER_DISABLED = "multi-tier analysis is not enabled for privilege zones"
ONLY_ZONES_GLYPH = "only zones support custom glyphs"
TIER_ZERO_GLYPH = "tier zero glyph cannot be modified"
RESERVED_GLYPH = "glyphs similar to tier zero or owned not allowed"
GLYPH_TAKEN = "asset group tag glyph must be unique"
NO_FIELDS = "no valid fields specified"
NAME_TAKEN = "asset group tag name must be unique"
INVALID_TAG_TYPE = "valid tag_type is required"
DELETE_DEFAULT_TAG = "cannot delete a default asset group tag"

SEEDS_REQUIRED = "seeds are required"
SEEDS_MIXED = "all seeds must be of the same type"
AUTO_CERTIFY_RANGE = "auto_certify must be an input value of 0 to 2"
AUTO_CERTIFY_ZONES = "auto_certify is only available for asset group tags of tag_type = 1 (zones)"
SELECTOR_NAME_TAKEN = "asset group tag selector name must be unique"
SELECTOR_NAME_EMPTY = "selector name can not be empty"
NOT_THIS_TAGS_SELECTOR = "selector is not part of asset group tag"
CANNOT_DISABLE = "this selector cannot be disabled"
DEFAULT_SELECTOR_FIELDS = "default selectors only support modifying auto_certify and disabled_at"
DELETE_DEFAULT_SELECTOR = "cannot delete a default selector"
SELECTOR_DISABLED = "selector is disabled"


def parse_tag_id(raw: str) -> int:
    """The reference answers a malformed tag or selector id with 404, not 400."""
    try:
        return parse_int_id(raw, bits=32)
    except BadRequest:
        raise NotFound(ID_MALFORMED) from None


def is_tier_zero(tag: AssetGroupTag) -> bool:
    return tag.type == TagType.ZONE and tag.position == 1


def is_default_tag(tag: AssetGroupTag) -> bool:
    return is_tier_zero(tag) or (tag.type == TagType.OWNED and tag.name == OWNED_NAME)


async def get_tag(session: AsyncSession, tag_id: int) -> AssetGroupTag:
    return get_or_404(await repo.get_tag(session, tag_id))


# --- tags ----------------------------------------------------------------------------------------


def _check_name(name: str) -> None:
    if not name:
        raise BadRequest(NAME_EMPTY)
    if not NAME_PATTERN.match(name):
        raise BadRequest(NAME_CHARACTERS)


async def _check_glyph(session: AsyncSession, glyph: str, tag: AssetGroupTag | None) -> None:
    if glyph.lower() in RESERVED_GLYPHS:
        raise BadRequest(RESERVED_GLYPH)
    holder = await repo.tag_with_glyph(session, glyph)
    if holder is not None and (tag is None or holder.id != tag.id):
        raise Conflict(GLYPH_TAKEN)


async def _zone_count(session: AsyncSession) -> int:
    return len(await repo.zones(session))


async def update_tag(session: AsyncSession, auth: AuthContext, tag_id: int, body: TagUpdate) -> AssetGroupTag:
    """Op 9, the rules of §3 in their order."""
    tag = await get_tag(session, tag_id)
    given = body.model_fields_set
    zone = tag.type == TagType.ZONE
    changes: dict[str, Any] = {}
    if "name" in given and body.name is not None:
        if not body.name:
            raise BadRequest(NAME_EMPTY)
        if body.name != tag.name and is_default_tag(tag):
            raise BadRequest(RENAME_DEFAULT)
        _check_name(body.name)
        changes["name"] = body.name
    if "description" in given and body.description is not None:
        changes["description"] = body.description
    if "require_certify" in given and body.require_certify is not None:
        if not zone:
            raise BadRequest(ONLY_ZONES_CERTIFY)
        changes["require_certify"] = body.require_certify
    if "position" in given and body.position is not None:
        if not zone:
            raise BadRequest(ONLY_ZONES_POSITION)
        if is_tier_zero(tag):
            if body.position != tag.position:
                raise Forbidden(TIER_ZERO_POSITION)
        elif not 2 <= body.position <= await _zone_count(session):
            raise BadRequest(POSITION_RANGE)
        changes["position"] = body.position
    if "analysis_enabled" in given and body.analysis_enabled is not None:
        if not zone:
            raise BadRequest(ONLY_ZONES_ANALYSIS)
        if is_tier_zero(tag):
            raise Forbidden(TIER_ZERO_ANALYSIS)
        # Every zone is analysed here; the reference gates switching it behind a licence (multi-tier).
        raise Forbidden(MULTI_TIER_DISABLED)
    if "glyph" in given:
        glyph = body.glyph or None
        if glyph is not None or tag.glyph is not None:
            if not zone:
                raise BadRequest(ONLY_ZONES_GLYPH)
            if is_tier_zero(tag):
                raise BadRequest(TIER_ZERO_GLYPH)
            if glyph is not None:
                await _check_glyph(session, glyph, tag)
        changes["glyph"] = glyph
    if not given & {"name", "description", "require_certify", "position", "analysis_enabled", "glyph"}:
        raise BadRequest(NO_FIELDS)
    changes = {key: value for key, value in changes.items() if getattr(tag, key) != value}
    if not changes:
        return tag
    if "name" in changes:
        holder = await repo.tag_named(session, changes["name"])
        if holder is not None and holder.id != tag.id:
            raise Conflict(NAME_TAKEN)
    if "position" in changes:
        await _move(session, tag, changes.pop("position"))
    for key, value in changes.items():
        setattr(tag, key, value)
    if "name" in changes:
        tag.kind_id = await repo.kind_id(session, tag.name)
    _touch(tag, auth)
    await repo.save(session, tag)
    await history.record(session, auth, history.UPDATE_TAG, tag.id, tag.name)
    # The graph follows at the next analysis: new position, certification rule or kind name.
    await datapipe_service.request_analysis(session)
    return tag


async def _move(session: AsyncSession, tag: AssetGroupTag, position: int) -> None:
    old = tag.position or position
    tag.position = None  # out of the way while the others move
    await repo.save(session, tag)
    if position < old:
        await repo.shift_positions(session, from_position=position, step=1, below=old)
    else:
        await repo.shift_positions(session, from_position=old + 1, step=-1, below=position + 1)
    tag.position = position


def _touch(row: AssetGroupTag | AssetGroupTagSelector, auth: AuthContext) -> None:
    row.updated_at = utcnow()
    row.updated_by = str(auth.user_id)


async def create_tag(session: AsyncSession, auth: AuthContext, body: TagCreate) -> AssetGroupTag:
    if body.type not in (TagType.ZONE, TagType.LABEL):
        raise BadRequest(INVALID_TAG_TYPE)
    _check_name(body.name)
    zone = body.type == TagType.ZONE
    if body.require_certify is not None and not zone:
        raise BadRequest(ONLY_ZONES_CERTIFY)
    zones = await _zone_count(session)
    if body.position is not None:
        if not zone:
            raise BadRequest(ONLY_ZONES_POSITION)
        if not 2 <= body.position <= zones + 1:
            raise BadRequest(POSITION_RANGE)
    glyph = body.glyph or None
    if glyph is not None:
        if not zone:
            raise BadRequest(ONLY_ZONES_GLYPH)
        await _check_glyph(session, glyph, None)
    if await repo.tag_named(session, body.name) is not None:
        raise Conflict(NAME_TAKEN)
    position = None
    if zone:
        position = body.position or zones + 1
        await repo.shift_positions(session, from_position=position, step=1)
    now, actor = utcnow(), str(auth.user_id)
    tag = AssetGroupTag(type=body.type, name=body.name, description=body.description,
                        kind_id=await repo.kind_id(session, body.name), position=position,
                        require_certify=bool(body.require_certify) if zone else None,
                        analysis_enabled=True if zone else None, glyph=glyph,
                        created_at=now, created_by=actor, updated_at=now, updated_by=actor)
    await repo.add(session, tag)
    await history.record(session, auth, history.CREATE_TAG, tag.id, tag.name)
    return tag


async def delete_tag(session: AsyncSession, auth: AuthContext, tag_id: int) -> None:
    tag = await get_tag(session, tag_id)
    if is_default_tag(tag):
        raise Forbidden(DELETE_DEFAULT_TAG)
    position = tag.position
    tag.deleted_at, tag.deleted_by, tag.position, tag.glyph = utcnow(), str(auth.user_id), None, None
    _touch(tag, auth)
    await repo.save(session, tag)
    await repo.delete_selectors_of(session, tag.id)
    if position is not None:
        await repo.shift_positions(session, from_position=position + 1, step=-1)
    await history.record(session, auth, history.DELETE_TAG, tag.id, tag.name)
    await datapipe_service.request_analysis(session)


# --- selectors -----------------------------------------------------------------------------------


def check_seeds(seeds: list[SeedBody]) -> list[AssetGroupTagSelectorSeed]:
    """The seed rules shared by selectors and previews."""
    if not seeds:
        raise BadRequest(SEEDS_REQUIRED)
    if len({seed.type for seed in seeds}) > 1:
        raise BadRequest(SEEDS_MIXED)
    for seed in seeds:
        if seed.type not in (SeedType.OBJECT_ID, SeedType.CYPHER):
            raise BadRequest(f"invalid seed type {seed.type}")
        if seed.type == SeedType.CYPHER:
            try:
                check_cypher_seed(seed.value)
            except CypherError as error:
                raise BadRequest(f"cypher is invalid: {error.message}") from None
    return [AssetGroupTagSelectorSeed(type=seed.type, value=seed.value) for seed in seeds]


def _check_auto_certify(tag: AssetGroupTag, value: int) -> AutoCertify:
    if value not in tuple(AutoCertify):
        raise BadRequest(AUTO_CERTIFY_RANGE)
    if value != AutoCertify.OFF and tag.type != TagType.ZONE:
        raise BadRequest(AUTO_CERTIFY_ZONES)
    return AutoCertify(value)


async def get_selector(session: AsyncSession, tag: AssetGroupTag, selector_id: int) -> AssetGroupTagSelector:
    selector = get_or_404(await repo.get_selector(session, selector_id))
    if selector.asset_group_tag_id != tag.id:
        raise NotFound(NOT_THIS_TAGS_SELECTOR)
    return selector


async def create_selector(session: AsyncSession, auth: AuthContext, tag: AssetGroupTag,
                          body: SelectorCreate) -> AssetGroupTagSelector:
    if not body.name:
        raise BadRequest(SELECTOR_NAME_EMPTY)
    seeds = check_seeds(body.seeds)
    auto_certify = _check_auto_certify(tag, AutoCertify.OFF if body.auto_certify is None else body.auto_certify)
    if await repo.selector_named(session, tag.id, body.name) is not None:
        raise Conflict(SELECTOR_NAME_TAKEN)
    now, actor = utcnow(), str(auth.user_id)
    selector = AssetGroupTagSelector(
        asset_group_tag_id=tag.id, name=body.name, description=body.description, auto_certify=auto_certify,
        is_default=False, allow_disable=True, seeds=seeds, created_at=now, created_by=actor, updated_at=now,
        updated_by=actor)
    await repo.add(session, selector)
    await history.record(session, auth, history.CREATE_SELECTOR, tag.id, selector.name)
    await datapipe_service.request_analysis(session)
    return selector


async def update_selector(session: AsyncSession, auth: AuthContext, tag: AssetGroupTag, selector_id: int,
                          body: SelectorUpdate) -> AssetGroupTagSelector:
    """Op 7: only the given fields change; default selectors only `auto_certify` and `disabled`."""
    selector = await get_selector(session, tag, selector_id)
    given = body.model_fields_set - {key for key in body.model_fields_set if getattr(body, key) is None}
    if not given:
        raise BadRequest(NO_FIELDS)
    if selector.is_default and given & {"name", "description", "seeds"}:
        raise Forbidden(DEFAULT_SELECTOR_FIELDS)
    if body.name is not None and not body.name:
        raise BadRequest(SELECTOR_NAME_EMPTY)
    seeds = check_seeds(body.seeds) if body.seeds is not None else None
    auto_certify = _check_auto_certify(tag, body.auto_certify) if body.auto_certify is not None else None
    if body.disabled and not selector.allow_disable:
        raise Forbidden(CANNOT_DISABLE)
    if body.name is not None and body.name != selector.name:
        if await repo.selector_named(session, tag.id, body.name) is not None:
            raise Conflict(SELECTOR_NAME_TAKEN)
        selector.name = body.name
    if body.description is not None:
        selector.description = body.description
    if seeds is not None:
        selector.seeds = seeds
    if auto_certify is not None:
        selector.auto_certify = auto_certify
    if body.disabled is not None:
        if body.disabled and selector.disabled_at is None:
            selector.disabled_at, selector.disabled_by = utcnow(), str(auth.user_id)
        elif not body.disabled:
            selector.disabled_at, selector.disabled_by = None, None
    _touch(selector, auth)
    await repo.save(session, selector)
    await history.record(session, auth, history.UPDATE_SELECTOR, tag.id, selector.name)
    await datapipe_service.request_analysis(session)
    return selector


async def delete_selector(session: AsyncSession, auth: AuthContext, tag: AssetGroupTag, selector_id: int) -> None:
    selector = await get_selector(session, tag, selector_id)
    if selector.is_default:
        raise Forbidden(DELETE_DEFAULT_SELECTOR)
    await repo.delete_selector(session, selector.id)
    await history.record(session, auth, history.DELETE_SELECTOR, tag.id, selector.name)
    await datapipe_service.request_analysis(session)


