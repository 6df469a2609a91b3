"""The graph store: bulk writes of reader batches into the node and edge tables."""

from houndgraph.graph.store.catalogue import KindCatalogue
from houndgraph.graph.store.writer import GraphStore, WriteStats, rfc3339

__all__ = ["GraphStore", "KindCatalogue", "WriteStats", "rfc3339"]
