"""Request and response shapes of POST /api/v2/graphs/cypher (model.unified-graph.* upstream)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, TypeAdapter
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
LITERALS = TypeAdapter(list[Literal])


@dataclass(slots=True)
class GraphAnswer:
    """A Cypher answer as `CypherGraph` documents it, its nodes and edges made in their written shape already
    (`graph_shapes.node_wire`, `edge_wire`): an answer may hold thousands of them."""

    nodes: dict[str, dict[str, Any]]
    edges: list[dict[str, Any]]
    literals: list[Literal]
    node_keys: list[str] | None = None
    edge_keys: list[str] | None = None

    def wire(self) -> dict[str, Any]:
        """The answer's `data`, as `CypherGraph.model_dump(mode="json", by_alias=True, exclude_none=True)` writes it,
        but for a literal whose value is null: its `value` is written, null, as the reference's literal (a key and a
        value, neither left out) is."""
        data = {"nodes": self.nodes, "edges": self.edges, "literals": LITERALS.dump_python(self.literals, mode="json")}
        if self.node_keys is not None:
            data["node_keys"] = self.node_keys
        if self.edge_keys is not None:
            data["edge_keys"] = self.edge_keys
        return data


class KindList(BaseModel):
    """`GET /api/v2/graphs/kinds`: every node and edge kind the graph knows, by name."""

    kinds: list[str]


class SourceKindView(BaseModel):
    id: int
    name: str


class SourceKindList(BaseModel):
    """`GET /api/v2/graphs/source-kinds`: the ids `POST /api/v2/clear-database` takes as `deleteSourceKinds`."""

    kinds: list[SourceKindView]
