"""Azure entity panels: one route for every Azure kind, `GET /api/v2/azure/{entity_type}?object_id=`, that
answers the panel (properties and counts) or, with `related_entity_type`, one related list.

Validation order and messages are the reference's (`GetAZEntity`, `GetAZRelatedEntities`). Two
differences, both deliberate: an unknown object in a related list is a 404 `not found` as for the panel
(the reference answers 500 there), and `counts=false` leaves the count keys out rather than writing zeros
that a client could take for real counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.db import graph_connection
from houndgraph.entity import repository
from houndgraph.entity.azure_panels import AZURE_ENTITIES, AZURE_RELATED, AzureEntity
from houndgraph.errors import BAD_FILTERS, BadRequest, NotFound
from houndgraph.graph import azure_related, lookup
from houndgraph.graph.kinds import AZNode
from houndgraph.kit.graph_shapes import OWNED_KIND, OWNED_TAG, bh_graph, display_kind, is_tier_zero, system_tags
from houndgraph.kit.pagination import MAX_INT64
from houndgraph.kit.query import parse_bool
from houndgraph.kit.repository import get_or_404

OBJECT_ID_REQUIRED = "query parameter object_id is required"
NOT_FOUND = "not found"
BAD_RETURN_TYPE = 'query parameter "type" is malformed: invalid return type requested for related entities'
RELATED_DEFAULT_LIMIT = 100


@dataclass(frozen=True, slots=True)
class AzureQuery:
    """The query parameters as sent; which of them count depends on the others (validated in that order)."""

    object_id: str | None = None
    related_entity_type: str | None = None
    counts: str | None = None
    type: str | None = None
    skip: str | None = None
    limit: str | None = None


@dataclass(frozen=True)
class AzureAnswer:
    body: dict[str, Any]
    wrapped: bool  # panels go in `{data}`; related lists are written as they are, as the reference does


def azure_node(kinds: tuple[str, ...], props: dict[str, Any]) -> dict[str, Any]:
    """The reference's `azure.Node`: display kind, kinds, tier zero and owned flags, properties."""
    return {"kind": display_kind(kinds, props), "kinds": list(kinds), "isTierZero": is_tier_zero(kinds, props),
            "isOwnedObject": OWNED_KIND in kinds or OWNED_TAG in system_tags(props).split(), "props": props}


async def azure_entity(session: AsyncSession, entity_type: str, params: AzureQuery) -> AzureAnswer:
    object_id = params.object_id
    if not object_id:
        raise BadRequest(OBJECT_ID_REQUIRED)
    entity = AZURE_ENTITIES.get(entity_type)
    if entity is None:
        raise BadRequest(BAD_FILTERS)
    if params.related_entity_type:
        return AzureAnswer(await _related(session, object_id, params.related_entity_type, params), wrapped=False)
    include_counts = parse_bool(params.counts, True)
    return AzureAnswer(await _panel(session, entity, object_id, include_counts), wrapped=True)


async def _panel(session: AsyncSession, entity: AzureEntity, object_id: str, include_counts: bool) -> dict[str, Any]:
    conn = await graph_connection(session)
    kinds = await lookup.kind_ids(conn)
    # Any Azure node answers under any entity type, as in the reference (it looks up AZBase only).
    node = get_or_404(await lookup.node_by_object_id(conn, object_id, kinds, [AZNode.Base]), NOT_FOUND)
    data = azure_node(node.kinds, node.properties)
    if not include_counts:
        return data
    for count in entity.counts:
        try:
            value = await repository.count(conn, count.relation, node.id, kinds)
        except repository.CountTimedOut:
            continue  # a timed-out count is left out, as the AD panels do (reference/behaviour.md §9)
        if count.group:
            data.setdefault(count.group, {})[count.key] = value
        else:
            data[count.key] = value
    if entity.descendents:
        wanted = azure_related.DESCENDENT_KINDS[entity.kind]
        try:
            found = await repository.count_by_kind(conn, azure_related.descendent_kind_counts(kinds, wanted), node.id)
        except repository.CountTimedOut:
            return data
        data["descendents"] = {"descendent_counts": {kind: found.get(kind, 0) for kind in wanted}}
    return data


def _page_param(raw: str | None, key: str, default: int) -> int:
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if not 0 <= value <= MAX_INT64:
        raise BadRequest(f'query parameter "{key}" is malformed: invalid {key}: {raw}')
    return value


async def _related(session: AsyncSession, object_id: str, related_type: str, params: AzureQuery) -> dict[str, Any]:
    return_type = params.type or "list"
    if return_type not in ("list", "graph"):
        raise BadRequest(BAD_RETURN_TYPE)
    skip = _page_param(params.skip, "skip", 0)
    limit = _page_param(params.limit, "limit", RELATED_DEFAULT_LIMIT)
    relation = AZURE_RELATED.get(related_type)
    if relation is None:
        raise NotFound(f"no matching related entity list type for {related_type}")
    conn = await graph_connection(session)
    kinds = await lookup.kind_ids(conn)
    node = get_or_404(await lookup.node_by_object_id(conn, object_id, kinds, [AZNode.Base]), NOT_FOUND)
    if return_type == "graph":
        ids = [node.id, *await repository.related_ids(conn, relation, node.id, kinds)]
        nodes = await lookup.nodes_by_id(conn, ids)
        edges = await lookup.edges_among(conn, ids, relation.edge_kinds, kinds)
        return bh_graph(nodes, edges)
    page = await repository.page(conn, relation, node.id, kinds, order=[], skip=skip, limit=limit)
    if skip > page.count:
        raise BadRequest(f"invalid skip: {skip}")
    return {"count": page.count, "limit": limit, "skip": skip,
            "data": [azure_node(entry.kinds, entry.properties) for entry in page.entries]}
