"""The graph-id look-ups' answers (`GET /api/v2/nodes/{node_id}`, `GET /api/v2/relationships/{relationship_id}`).

A kind's id is its id in the graph's kind table: this service has no OpenGraph schema tables, whose ids the
reference gives there."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class NodeKindView(BaseModel):
    node_kind_id: int | None
    name: str


class GraphNodeView(BaseModel):
    node_id: int
    kinds: list[NodeKindView]
    properties: dict[str, Any]


class RelationshipKindView(BaseModel):
    relationship_kind_id: int
    name: str


class GraphRelationshipView(BaseModel):
    relationship_id: int
    source_node_id: int
    target_node_id: int
    kind: RelationshipKindView
    properties: dict[str, Any]
