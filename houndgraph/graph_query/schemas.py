"""Request and response shapes of POST /api/v2/graphs/cypher (model.unified-graph.* upstream)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class CypherQueryRequest(BaseModel):
    query: str
    include_properties: bool = False


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


class Literal(BaseModel):
    key: str
    value: Any


class CypherGraph(BaseModel):
    nodes: dict[str, GraphNode]
    edges: list[GraphEdge]
    literals: list[Literal]
    node_keys: list[str] | None = None
    edge_keys: list[str] | None = None
