"""The graph store: bulk writes of reader batches into the node and edge tables."""

from houndgraph.graph.store.catalogue import KindCatalogue
from houndgraph.graph.store.encoding import rfc3339
from houndgraph.graph.store.stats import WriteStats
from houndgraph.graph.store.writer import GraphStore

__all__ = ["GraphStore", "KindCatalogue", "WriteStats", "rfc3339"]
