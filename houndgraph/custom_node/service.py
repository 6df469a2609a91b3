"""Custom node kinds: how the UI draws nodes of a kind (OpenGraph data), as forcehound and sfhound set them."""

from __future__ import annotations

import re

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.custom_node import repository
from houndgraph.custom_node.schemas import CreateCustomNodes, KindConfig
from houndgraph.errors import BadRequest, Conflict, NotFound
from houndgraph.kit.repository import get_or_404
from houndgraph.models import CustomNodeKind

ICON_TYPE = "font-awesome"
DEFAULT_COLOR = "#FFFFFF"
COLOR = re.compile(r"^#([a-fA-F0-9]{6}|[a-fA-F0-9]{3})$")
# The reference prefixes these messages with its error codes.
EMPTY_KEY = "BadRequest: custom_types contains an entry with an empty string as a key. please remove or replace " \
            "the empty key"
BAD_ICON = "BadRequest: invalid icon type. only Font Awesome icons are supported"
BAD_COLOR = "BadRequest: icon color must be a valid hexadecimal color string starting with '#' followed by 3 or 6 " \
            "hex digits"
DUPLICATE = "Conflict: duplicate kind name"


def _checked(config: KindConfig) -> dict[str, object]:
    if config.icon.type != ICON_TYPE:
        raise BadRequest(BAD_ICON)
    if config.icon.color and not COLOR.match(config.icon.color):
        raise BadRequest(BAD_COLOR)
    icon = config.icon.model_copy(update={"color": config.icon.color or DEFAULT_COLOR})
    return {"icon": icon.model_dump()}


async def list_kinds(session: AsyncSession) -> list[CustomNodeKind]:
    return await repository.list_all(session)


async def get_kind(session: AsyncSession, kind_name: str) -> CustomNodeKind:
    return get_or_404(await repository.get(session, kind_name))


async def create_kinds(session: AsyncSession, body: CreateCustomNodes) -> list[CustomNodeKind]:
    rows = []
    for name, config in body.custom_types.items():
        if not name:
            raise BadRequest(EMPTY_KEY)
        rows.append(CustomNodeKind(kind_name=name, config=_checked(config)))
    if await repository.existing(session, [row.kind_name for row in rows]):
        raise Conflict(DUPLICATE)
    await repository.add(session, rows)
    return rows


async def update_kind(session: AsyncSession, kind_name: str, config: KindConfig) -> CustomNodeKind:
    checked = _checked(config)
    row = await get_kind(session, kind_name)
    row.config = checked
    await repository.save(session, row)
    return row


async def delete_kind(session: AsyncSession, kind_name: str) -> None:
    if not await repository.remove(session, kind_name):
        raise NotFound()


async def draw_schema_kind(session: AsyncSession, kind_name: str, icon: str, color: str,
                           schema_node_kind_id: int) -> None:
    """How the UI draws a display node kind an extension declares: its icon and colour, each kept from the kind's
    existing setting when the extension leaves it empty (as the reference does), linked to the extension's kind."""
    row = await repository.get(session, kind_name)
    if row is None:
        row = CustomNodeKind(kind_name=kind_name, config={"icon": {"type": ICON_TYPE, "name": icon, "color": color}},
                             schema_node_kind_id=schema_node_kind_id)
        await repository.add(session, [row])
        return
    current = KindConfig.model_validate(row.config).icon
    row.config = {"icon": {"type": ICON_TYPE, "name": icon or current.name, "color": color or current.color}}
    row.schema_node_kind_id = schema_node_kind_id
    await repository.save(session, row)
