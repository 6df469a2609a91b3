"""What the path-finding routes answer (rendered by hand; declared here for the OpenAPI document)."""

from __future__ import annotations

from houndgraph.kit.envelopes import DataEnvelope
from houndgraph.kit.graph_shapes import BloodHoundGraph, GraphWithLiterals, UnifiedGraph

ShortestPathAnswer = DataEnvelope[UnifiedGraph]
# The deprecated /pathfinding: the legacy graph map, `{}` when there is no path.
PathfindingAnswer = DataEnvelope[BloodHoundGraph]
EdgeGraphAnswer = DataEnvelope[GraphWithLiterals]
