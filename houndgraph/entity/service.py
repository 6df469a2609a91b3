"""Entity panels: a node's properties with the counts of its related entities, and the lists behind them."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from houndgraph.db import graph_connection
from houndgraph.entity import repository
from houndgraph.entity.ad_panels import Entity
from houndgraph.entity.listing import ENTRIES
from houndgraph.entity.schemas import GraphNodeView, GraphRelationshipView, NodeKindView, RelationshipKindView
from houndgraph.errors import BadRequest, NotFound
from houndgraph.graph import lookup
from houndgraph.graph.connection import GraphConnection
from houndgraph.graph.kind_catalogue import kind_map
from houndgraph.graph.kinds import ADEdge, ADNode
from houndgraph.graph.related import KindIds, Relation
from houndgraph.graph.rows import NodeRow
from houndgraph.kit.graph_shapes import bh_graph, display_kind, is_tier_zero
from houndgraph.kit.pagination import parse_page
from houndgraph.kit.repository import get_or_404
from houndgraph.kit.sorting import parse_sort

NODE_NOT_FOUND = "node not found"
UNSUPPORTED_TYPE = "there are errors in the query parameters: unsupported result type for this query"
LIST_DEFAULT_LIMIT = 10


@dataclass(frozen=True)
class ServerIsLink:
    outbound: bool
    other_kind: str
    id_key: str
    name_key: str


# A site server and the computer its server object stands for name each other in their panels, as the
# reference's GetADEntityDetails decorates them (`cmd/api/src/queries`).
SERVER_IS_LINKS: dict[str, ServerIsLink] = {
    ADNode.SiteServer: ServerIsLink(True, ADNode.Computer, "serverreferencecomputer", "serverreferencecomputername"),
    ADNode.Computer: ServerIsLink(False, ADNode.SiteServer, "siteservernode", "siteservernodename"),
}


@dataclass(frozen=True)
class ListRequest:
    graph: bool
    skip: int
    limit: int
    order: list[tuple[str, bool]]


def parse_list_request(kind: str | None, skip: str | None, limit: str | None, sort_by: Iterable[str]) -> ListRequest:
    kind = kind or "list"
    if kind not in ("list", "graph"):
        raise BadRequest(UNSUPPORTED_TYPE)
    page = parse_page(skip, limit, default_limit=LIST_DEFAULT_LIMIT)
    sort = parse_sort(sort_by, ENTRIES.sortable)
    return ListRequest(kind == "graph", page.skip, page.limit, [(key.column, key.descending) for key in sort])


async def _find(conn: GraphConnection, object_id: str, kinds: KindIds, kind: str) -> NodeRow:
    return get_or_404(await lookup.node_by_object_id(conn, object_id, kinds, [kind]), NODE_NOT_FOUND)


async def entity_info(session: AsyncSession, entity: Entity, object_id: str, include_counts: bool
                      ) -> dict[str, Any]:
    conn = await graph_connection(session)
    kinds = await lookup.kind_ids(conn)
    node = await _find(conn, object_id, kinds, entity.kind)
    props = dict(node.properties)
    link = SERVER_IS_LINKS.get(entity.kind)
    if link is not None:
        other = await repository.linked_by_edge(conn, node.id, ADEdge.ServerIs, outbound=link.outbound,
                                                other_kind=link.other_kind, kinds=kinds)
        if other is not None:
            props[link.id_key], props[link.name_key] = other.get("objectid"), other.get("name")
    if not include_counts:
        if is_tier_zero(node.kinds, props):
            props["isTierZero"] = True
        return {"props": props}
    result: dict[str, Any] = {}
    for count in entity.counts:
        try:
            result[count.key] = await repository.count(conn, count.relation, node.id, kinds)
        except repository.CountTimedOut:
            continue  # a timed-out count is left out (reference/behaviour.md §9)
    result["props"] = props
    result["kinds"] = list(node.kinds)
    return result


async def related(session: AsyncSession, entity: Entity, relation: Relation, object_id: str,
                  request: ListRequest) -> dict[str, Any]:
    """`type=list`: the page envelope; `type=graph`: the legacy graph map of the root, the related nodes
    and the relation's edges among them (without the `data` wrapper, as the reference writes it)."""
    conn = await graph_connection(session)
    kinds = await lookup.kind_ids(conn)
    node = await _find(conn, object_id, kinds, entity.kind)
    if request.graph:
        ids = [node.id, *await repository.related_ids(conn, relation, node.id, kinds)]
        nodes = await lookup.nodes_by_id(conn, ids)
        edges = await lookup.edges_among(conn, ids, relation.edge_kinds, kinds)
        return bh_graph(nodes, edges)
    page = await repository.page(conn, relation, node.id, kinds, order=request.order, skip=request.skip,
                                 limit=request.limit)
    if request.skip > page.count:
        raise BadRequest(f"invalid skip: {request.skip}")
    data = [{"objectID": str(e.properties.get("objectid") or ""), "name": str(e.properties.get("name") or ""),
             "label": display_kind(e.kinds, e.properties), "kinds": list(e.kinds)} for e in page.entries]
    return {"count": page.count, "skip": request.skip, "limit": request.limit, "data": data}


async def set_domain_collected(session: AsyncSession, object_id: str, collected: bool) -> bool:
    """Whether the domain counts as collected (the UI lists uncollected domains apart)."""
    conn = await graph_connection(session)
    node = await _find(conn, object_id, await lookup.kind_ids(conn), ADNode.Domain)
    await repository.set_property(conn, node.id, "collected", collected)
    return collected


async def meta(session: AsyncSession, object_id: str) -> dict[str, Any]:
    conn = await graph_connection(session)
    kinds = await lookup.kind_ids(conn)
    node = await _find(conn, object_id, kinds, ADNode.Meta)
    return {"props": node.properties}


async def _tier_zero(session: AsyncSession, domain_id: str) -> tuple[GraphConnection, KindIds, list[NodeRow]]:
    conn = await graph_connection(session)
    kinds = await lookup.kind_ids(conn)
    members = await lookup.nodes_by_id(conn, await repository.tier_zero_of_domain(conn, domain_id, kinds))
    return conn, kinds, members


async def tier_zero_combo_node(session: AsyncSession, domain_id: str) -> dict[str, Any]:
    """The domain's Tier Zero collapsed into one `Meta` node (an Enterprise view the reference's CE router
    leaves out), in the legacy node map: its members' object ids and their count."""
    _, _, members = await _tier_zero(session, domain_id)
    if not members:
        raise NotFound()
    combo_id = f"{domain_id.upper()}-TIER-ZERO"
    return {combo_id: {
        "data": {"objectid": combo_id, "name": f"TIER ZERO ({domain_id.upper()})", "nodetype": ADNode.Meta,
                 "kinds": [ADNode.Meta], "domainsid": domain_id.upper(), "membercount": len(members),
                 "members": [str(m.properties.get("objectid") or "") for m in members]},
        "label": {"text": f"TIER ZERO ({domain_id.upper()})"}, "fontIcon": {"text": ADNode.Meta},
    }}


async def tier_zero_combo_tree(session: AsyncSession, domain_id: str) -> dict[str, Any]:
    """What the combo node stands for, in the legacy graph map: the domain's Tier Zero members and the
    group memberships among them."""
    conn, kinds, members = await _tier_zero(session, domain_id)
    edges = await lookup.edges_among(conn, [m.id for m in members], [ADEdge.MemberOf, ADEdge.Contains], kinds)
    return bh_graph(members, edges)


NODE_ID_MALFORMED = "node id is malformed"
RELATIONSHIP_ID_MALFORMED = "relationship id is malformed"
_BIGINT = range(-(2**63), 2**63)
_DECIMAL = re.compile(r"[+-]?[0-9]+")


def parse_graph_id(raw: str, malformed: str) -> int:
    """A graph id as the reference's `strconv.ParseInt(raw, 10, 64)` takes it."""
    if not _DECIMAL.fullmatch(raw) or int(raw) not in _BIGINT:
        raise BadRequest(malformed)
    return int(raw)


async def node_by_graph_id(session: AsyncSession, raw_id: str) -> GraphNodeView:
    node_id = parse_graph_id(raw_id, NODE_ID_MALFORMED)
    conn = await graph_connection(session)
    node = get_or_404(await lookup.node_by_id(conn, node_id), "node not found")
    ids = await kind_map(conn)
    return GraphNodeView(node_id=node.id, properties=node.properties,
                         kinds=[NodeKindView(node_kind_id=ids.get(name), name=name) for name in node.kinds])


async def relationship_by_graph_id(session: AsyncSession, raw_id: str) -> GraphRelationshipView:
    relationship_id = parse_graph_id(raw_id, RELATIONSHIP_ID_MALFORMED)
    conn = await graph_connection(session)
    edges = await lookup.edges_by_id(conn, [relationship_id])
    if not edges:
        raise NotFound("relationship not found")
    edge = edges[0]
    kind_id = (await kind_map(conn))[edge.kind]
    return GraphRelationshipView(relationship_id=edge.id, source_node_id=edge.start_id, target_node_id=edge.end_id,
                                 kind=RelationshipKindView(relationship_kind_id=kind_id, name=edge.kind),
                                 properties=edge.properties)
