"""Request and response shapes of POST /api/v2/graphs/cypher (model.unified-graph.* upstream)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from typing_extensions import TypedDict

from houndgraph.kit.envelopes import DataEnvelope
from houndgraph.kit.graph_shapes import GraphEdge, GraphNode


class CypherQueryRequest(BaseModel):
    query: str
    include_properties: bool = False


class Literal(TypedDict):
    """One value of a result row (a dict, not a model: a result may carry 100k of them)."""

    key: str
    value: Any


class CypherGraph(BaseModel):
    nodes: dict[str, GraphNode]
    edges: list[GraphEdge]
    literals: list[Literal]
    node_keys: list[str] | None = None
    edge_keys: list[str] | None = None


CypherAnswer = DataEnvelope[CypherGraph]
class KindList(BaseModel):
    """`GET /api/v2/graphs/kinds`: every node and edge kind the graph knows, by name."""

    kinds: list[str]


class SourceKindView(BaseModel):
    id: int
    name: str


class SourceKindList(BaseModel):
    """`GET /api/v2/graphs/source-kinds`: the ids `POST /api/v2/clear-database` takes as `deleteSourceKinds`."""

    kinds: list[SourceKindView]
