"""How the Cypher answer writes a literal: every value of a row that is not one node, relationship or path.

The reference answers a node, a relationship or a path returned as such with its graph (dawgs' `FetchByQuery` maps
each value of a row onto a node, a relationship or a path, and adds those to the answer's path set); any other
value, lists and maps holding entities included (`collect(n)`, `nodes(p)`, `[n, r]`, `{key: n}`), it keeps as a
literal, in which each entity is its graph driver's record: on PostgreSQL the node composite (`id`, `kind_ids`,
`properties`), the edge composite (`id`, `start_id`, `end_id`, `kind_id`, `properties`) and the path composite
(`nodes`, `edges`). This service writes the same records with the kinds by name (`kinds`, `kind`): the numbers
of its kind table mean nothing to a client. A literal's entities are not among the answer's graph nodes and edges,
as in the reference."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from houndgraph.graph.cypher import entity_values
from houndgraph.graph.cypher.temporal.stored import TAG, iso_properties, iso_text, utc_datetime
from houndgraph.graph.cypher.temporal.values import iso
from houndgraph.graph.cypher.translate.values import T
from houndgraph.graph.rows import EdgeRow, NodeRow

# How each kind of column answers: a graph value (its nodes and edges), or a literal.
GRAPH_COLUMNS = (T.NODE, T.REL, T.PATH)
LITERAL_COLUMNS = (T.JSON, T.BOOL, T.DATETIME, T.DURATION, T.NODES, T.RELS, T.PATHS)
# The literals that cannot hold an entity.
SCALAR_COLUMNS = (T.BOOL, T.DATETIME, T.DURATION)


class Records:
    """The loaded nodes and edges a literal's entities are written from."""

    def __init__(self, nodes: Mapping[int, NodeRow], edges: Mapping[int, EdgeRow]) -> None:
        self.nodes = nodes
        self.edges = edges

    def node(self, node_id: int) -> dict[str, Any] | None:
        row = self.nodes.get(int(node_id))
        if row is None:  # deleted by the query that returns it
            return None
        return {"id": row.id, "kinds": list(row.kinds), "properties": iso_properties(row.properties)}

    def edge(self, edge_id: int) -> dict[str, Any] | None:
        row = self.edges.get(int(edge_id))
        if row is None:
            return None
        return {"id": row.id, "start_id": row.start_id, "end_id": row.end_id, "kind": row.kind,
                "properties": iso_properties(row.properties)}

    def path(self, ids: Sequence[int]) -> dict[str, Any]:
        return {"nodes": [self.node(i) for i in ids[0::2]], "edges": [self.edge(i) for i in ids[1::2]]}

    def value(self, value: Any) -> Any:
        """A jsonb value with its tagged entities as records and its temporal values as ISO text."""
        if isinstance(value, dict):
            if TAG in value:
                return iso_text(value)
            if len(value) == 1:
                if isinstance(node := value.get(entity_values.NODE_TAG), int):
                    return self.node(node)
                if isinstance(edge := value.get(entity_values.RELATIONSHIP_TAG), int):
                    return self.edge(edge)
                if isinstance(path := value.get(entity_values.PATH_TAG), list):
                    return self.path(path)
            return {key: self.value(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.value(item) for item in value]
        return value


def literal_value(value: Any, kind: T, records: Records) -> Any:
    if value is None:
        return None
    if kind is T.NODES:
        return [None if i is None else records.node(i) for i in value]
    if kind is T.RELS:
        return [None if i is None else records.edge(i) for i in value]
    if kind is T.PATHS:
        return [records.path(p) if isinstance(p, list) else None for p in value]
    if kind is T.JSON:
        return records.value(value) if isinstance(value, dict | list) else value
    if kind is T.DATETIME and isinstance(value, datetime):
        return iso(utc_datetime(value))
    return value
