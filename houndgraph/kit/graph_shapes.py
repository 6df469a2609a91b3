"""The node and edge shapes every graph answer shares (reference/behaviour.md §1), and the legacy
"BloodHound graph" map of the deprecated endpoints (§12).

Wire format, so it sits with the other shared response shapes in `kit/`, not in the graph library:
the Cypher endpoint, path finding, relay targets, search and the entity views shape the graph
library's plain `NodeRow` / `EdgeRow` records one way.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, RootModel

from houndgraph.graph.cypher.temporal.stored import iso_properties
from houndgraph.graph.kinds import primary_kind
from houndgraph.graph.rows import EdgeRow, EntityKeys, NodeRow

TIER_ZERO_KIND, OWNED_KIND = "Tag_Tier_Zero", "Tag_Owned"
TIER_ZERO_TAG, OWNED_TAG = "admin_tier_0", "owned"


class GraphNode(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    label: str
    kind: str
    kinds: list[str]
    object_id: str = Field(serialization_alias="objectId")
    is_tier_zero: bool = Field(serialization_alias="isTierZero")
    is_owned_object: bool = Field(serialization_alias="isOwnedObject")
    last_seen: str = Field(serialization_alias="lastSeen")
    properties: dict[str, Any] | None = None


class GraphEdge(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    source: str
    target: str
    label: str
    kind: str
    last_seen: str = Field(serialization_alias="lastSeen")
    properties: dict[str, Any] | None = None


class UnifiedGraph(BaseModel):
    nodes: dict[str, GraphNode]
    edges: list[GraphEdge]


class GraphWithLiterals(UnifiedGraph):
    """Relay targets and edge compositions: a unified graph with the (always empty) `literals` of the
    reference's answer."""

    literals: list[Any]


# The legacy map's items as `bh_graph` writes them (upstream `model.bh-graph.*`, of which the reference
# fills these keys alone); declared for the OpenAPI document, the map itself is built as plain dicts.
class GraphItemText(BaseModel):
    text: str


class GraphLinkEnd(BaseModel):
    arrow: bool


class BloodHoundGraphNode(BaseModel):
    data: dict[str, Any] = Field(description="The node's properties, with `nodetype`, `kinds` and `system_tags`.")
    label: GraphItemText
    fontIcon: GraphItemText  # noqa: N815 - the wire name


class BloodHoundGraphEdge(BaseModel):
    data: dict[str, Any] = Field(description="The edge's properties, with `relationshiptype`.")
    id1: str
    id2: str
    label: GraphItemText
    end2: GraphLinkEnd


class BloodHoundGraph(RootModel[dict[str, BloodHoundGraphNode | BloodHoundGraphEdge]]):
    """The legacy graph map: node ids, and edge ids prefixed `rel_`, to their items."""


def last_seen(properties: dict[str, Any]) -> str:
    value = properties.get("lastseen")
    if isinstance(value, str) and value:
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _epoch_text(value)
    return _millisecond_text(time.time_ns() // 1_000_000)


@lru_cache(maxsize=2)
def _millisecond_text(milliseconds: int) -> str:
    # The time now, for an entity that has no lastseen (most edges): written once a millisecond, not once per entity
    # (2 us each).
    return datetime.fromtimestamp(milliseconds / 1000, UTC).isoformat().replace("+00:00", "Z")


@lru_cache(maxsize=4096)
def _epoch_text(seconds: float) -> str:
    # The objects of one collection share a few timestamps: a path answer of thousands of edges writes a handful.
    return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")


def system_tags(properties: dict[str, Any]) -> str:
    tags = properties.get("system_tags")
    return " ".join(tags) if isinstance(tags, list) else str(tags or "")


def is_tier_zero(kinds: Iterable[str], properties: dict[str, Any]) -> bool:
    return TIER_ZERO_KIND in kinds or TIER_ZERO_TAG in system_tags(properties).split()


def display_kind(kinds: Iterable[str], properties: dict[str, Any]) -> str:
    """OpenGraph nodes name their own display kind in `primarykind`; others get it from their labels."""
    own = properties.get("primarykind")
    return own if isinstance(own, str) else _shown_kind(tuple(kinds))


@lru_cache(maxsize=1024)
def _shown_kind(kinds: tuple[str, ...]) -> str:
    # An answer's nodes share a few sets of kinds.
    return primary_kind(kinds)


# What `graph_node` and `graph_edge` read of an entity's properties when they show none of them (a caller may read
# only these; a test checks the answers are the same).
SHOWN_NODE_KEYS = ("objectid", "name", "system_tags", "primarykind", "lastseen")
SHOWN_EDGE_KEYS = ("lastseen",)
SHOWN_KEYS: EntityKeys = (SHOWN_NODE_KEYS, SHOWN_EDGE_KEYS)


def node_wire(row: NodeRow, include_properties: bool) -> dict[str, Any]:
    """The node as an answer writes it: `GraphNode` by its aliases, without a null key. Built as the dict itself, for
    the answers of thousands of nodes, which spent a fifth of their time making the models and writing them out."""
    props = iso_properties(row.properties)
    object_id = str(props.get("objectid") or "")
    wire: dict[str, Any] = {
        "label": str(props.get("name") or object_id), "kind": display_kind(row.kinds, props),
        "kinds": list(row.kinds), "objectId": object_id, "isTierZero": is_tier_zero(row.kinds, props),
        "isOwnedObject": OWNED_KIND in row.kinds or OWNED_TAG in system_tags(props).split(),
        "lastSeen": last_seen(props),
    }
    if include_properties:
        wire["properties"] = props
    return wire


def edge_wire(row: EdgeRow, include_properties: bool) -> dict[str, Any]:
    """The edge as an answer writes it (`GraphEdge` by its aliases, without a null key)."""
    wire: dict[str, Any] = {"source": str(row.start_id), "target": str(row.end_id), "label": row.kind,
                            "kind": row.kind, "lastSeen": last_seen(row.properties)}
    if include_properties:
        wire["properties"] = iso_properties(row.properties)
    return wire


def graph_node(row: NodeRow, include_properties: bool) -> GraphNode:
    wire = node_wire(row, include_properties)
    return GraphNode(label=wire["label"], kind=wire["kind"], kinds=wire["kinds"], object_id=wire["objectId"],
                     is_tier_zero=wire["isTierZero"], is_owned_object=wire["isOwnedObject"],
                     last_seen=wire["lastSeen"], properties=wire.get("properties"))


def graph_edge(row: EdgeRow, include_properties: bool) -> GraphEdge:
    wire = edge_wire(row, include_properties)
    return GraphEdge(source=wire["source"], target=wire["target"], label=wire["label"], kind=wire["kind"],
                     last_seen=wire["lastSeen"], properties=wire.get("properties"))


def unified_graph(nodes: Iterable[NodeRow], edges: Iterable[EdgeRow], *, include_properties: bool) -> UnifiedGraph:
    """Edges de-duplicated by (source, kind, target), as the reference's path answers are."""
    return UnifiedGraph(nodes={str(n.id): graph_node(n, include_properties) for n in sorted(nodes, key=lambda n: n.id)},
                        edges=[graph_edge(edge, include_properties) for edge in _distinct_edges(edges)])


def unified_wire(nodes: Iterable[NodeRow], edges: Iterable[EdgeRow], *, include_properties: bool) -> dict[str, Any]:
    """`unified_graph(...)` as its answer writes it, made as dicts (`node_wire`, `edge_wire`)."""
    return {"nodes": {str(n.id): node_wire(n, include_properties) for n in sorted(nodes, key=lambda n: n.id)},
            "edges": [edge_wire(edge, include_properties) for edge in _distinct_edges(edges)]}


def _distinct_edges(edges: Iterable[EdgeRow]) -> list[EdgeRow]:
    """The edges in id order, the first of each (source, kind, target)."""
    seen: set[tuple[int, str, int]] = set()
    distinct: list[EdgeRow] = []
    for edge in sorted(edges, key=lambda e: e.id):
        key = (edge.start_id, edge.kind, edge.end_id)
        if key not in seen:
            seen.add(key)
            distinct.append(edge)
    return distinct


def bh_graph(nodes: Iterable[NodeRow], edges: Iterable[EdgeRow]) -> dict[str, dict[str, Any]]:
    """The legacy flat map (`model.bh-graph.graph`): node ids, and edge ids prefixed `rel_`."""
    items: dict[str, dict[str, Any]] = {}
    for node in sorted(nodes, key=lambda n: n.id):
        kind = display_kind(node.kinds, node.properties)
        name = str(node.properties.get("name") or node.properties.get("objectid") or "")
        items[str(node.id)] = {
            "data": {**node.properties, "nodetype": kind, "kinds": list(node.kinds),
                     "system_tags": system_tags(node.properties)},
            "label": {"text": name}, "fontIcon": {"text": kind},
        }
    for edge in sorted(edges, key=lambda e: e.id):
        items[f"rel_{edge.id}"] = {
            "data": {**edge.properties, "relationshiptype": edge.kind}, "id1": str(edge.start_id),
            "id2": str(edge.end_id), "label": {"text": edge.kind}, "end2": {"arrow": True},
        }
    return items
