"""Compressed sparse rows of the edge table, both ways, in files every worker maps read-only.

An edge is kept twice, once among its start's outgoing edges and once among its end's incoming ones, each time as
the other end's node number (int32, the node's position among the sorted ids of the nodes with edges) and the kind's
number (uint8, its position among the kinds edges use): 10 bytes per edge, plus 16 per node (its id and two
offsets), about 11.5 bytes per edge on an enterprise-shaped graph of ten edges per node.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from houndgraph.graph.arrays import numbered

Array = npt.NDArray[Any]

# The arrays and their files; `meta.json` beside them holds the counts.
ARRAYS = ("node_ids", "kind_ids", "out_offsets", "out_nodes", "out_kinds", "in_offsets", "in_nodes", "in_kinds")
META = "meta.json"


@dataclass(frozen=True)
class EdgeProjection:
    """The edges, as rows by start (`out_*`) and by end (`in_*`): node i's outgoing edges are positions
    out_offsets[i]:out_offsets[i + 1] of out_nodes (their ends) and out_kinds."""

    node_ids: Array  # int64, sorted: node number -> node id
    kind_ids: Array  # int16: kind number -> kind id
    out_offsets: Array
    out_nodes: Array
    out_kinds: Array
    in_offsets: Array
    in_nodes: Array
    in_kinds: Array

    @property
    def edge_count(self) -> int:
        return len(self.out_nodes)

    @property
    def nbytes(self) -> int:
        return sum(int(getattr(self, name).nbytes) for name in ARRAYS)

    def node_numbers(self, node_ids: Array) -> Array:
        """The numbers of `node_ids`, -1 for an id with no edge."""
        places = np.searchsorted(self.node_ids, node_ids)
        places = np.minimum(places, max(len(self.node_ids) - 1, 0))
        found = len(self.node_ids) > 0
        known = (self.node_ids[places] == node_ids) if found else np.zeros(len(node_ids), bool)
        return np.where(known, places, -1)

    def kind_mask(self, kind_ids: list[int] | None) -> Array | None:
        """Which kind numbers a search follows; None for all."""
        if kind_ids is None:
            return None
        return np.isin(self.kind_ids, np.asarray(kind_ids, dtype=np.int64))

    @classmethod
    def from_edges(cls, starts: Array, kinds: Array, ends: Array) -> EdgeProjection:
        node_ids, (start_numbers, end_numbers) = numbered(starts, ends)
        # Kind ids are small: numbered through a table rather than by sorting every edge's.
        kind_ids = np.flatnonzero(np.bincount(kinds.astype(np.int64))) if len(kinds) else np.zeros(0, np.int64)
        kind_type = np.uint8 if len(kind_ids) <= 256 else np.uint16
        numbering = np.zeros(int(kind_ids[-1]) + 1 if len(kind_ids) else 1, dtype=kind_type)
        numbering[kind_ids] = np.arange(len(kind_ids), dtype=kind_type)
        kind_numbers = numbering[kinds]
        offset_type = np.uint32 if len(starts) < 2**32 else np.int64
        out_offsets, out_nodes, out_kinds = _rows(start_numbers, end_numbers, kind_numbers, len(node_ids), offset_type)
        in_offsets, in_nodes, in_kinds = _rows(end_numbers, start_numbers, kind_numbers, len(node_ids), offset_type)
        return cls(node_ids.astype(np.int64), kind_ids.astype(np.int16), out_offsets, out_nodes, out_kinds,
                   in_offsets, in_nodes, in_kinds)

    def save(self, directory: Path) -> None:
        """Write the arrays into `directory` (made here), each flushed to disk before the caller publishes it."""
        directory.mkdir(parents=True)
        for name in ARRAYS:
            with (directory / f"{name}.npy").open("wb") as file:
                np.save(file, getattr(self, name))
                file.flush()
                os.fsync(file.fileno())
        meta = {"nodes": len(self.node_ids), "edges": self.edge_count, "bytes": self.nbytes}
        (directory / META).write_text(json.dumps(meta))

    @classmethod
    def load(cls, directory: Path) -> EdgeProjection:
        """The arrays of `directory`, mapped read-only: the pages are the host's page cache, shared by every
        process that maps them. Plain arrays over the mapping: numpy's memmap class costs tens of microseconds on
        every indexing, and a search indexes a few dozen times."""
        return cls(**{name: np.asarray(np.load(directory / f"{name}.npy", mmap_mode="r")) for name in ARRAYS})


def _rows(keys: Array, others: Array, kinds: Array, nodes: int, offset_type: Any) -> tuple[Array, Array, Array]:
    # Each node's edges by other end, then kind: a search that keeps one parent per node keeps the same one
    # whatever order the edges were read in.
    order = np.lexsort((kinds, others, keys))
    offsets = np.zeros(nodes + 1, dtype=offset_type)
    offsets[1:] = np.cumsum(np.bincount(keys, minlength=nodes))
    return offsets, others[order], kinds[order]
