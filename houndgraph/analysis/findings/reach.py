"""Who can reach what, over a snapshot of the traversable edges held as reverse adjacency (CSR) arrays.

Node ids are mapped to dense indexes once. A multi-source reverse breadth-first search answers "which
nodes have a path into this set" (exposure: into Tier Zero) in one walk, a level at a time, each level
one vectorised gather over the CSR arrays.

Impact needs more than one set: for every finding principal, how many eligible principals reach it.
One search per principal is what must not happen. Nodes of one strongly connected component reach
exactly the same nodes, and attack graphs are mostly one giant component, so the graph is condensed
first (scipy) and reachability travels over the condensed graph as bits: each principal's component
gets a bit, each component a bit row, and a component's row is its own bits OR the rows of the
components it has an edge to. Rows are settled by propagating along reversed edges from the components
whose row changed last round, only over the ancestors found by one reverse search from the chunk.
Components are taken 1024 at a time to bound memory.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from houndgraph.graph.arrays import distinct, numbered, row_positions

Ids = NDArray[np.signedinteger[Any]]  # node ids are int64; dense indexes int32 or int64
Mask = NDArray[np.bool_]
Bits = NDArray[np.uint64]
CHUNK = 1024  # components per pass: 16 words of bits per component


class _Reverse:
    """Reverse adjacency of a graph on dense indexes: row = an edge's end, entries = its starts (int64 or int32
    indexes, as given)."""

    def __init__(self, indptr: Ids, indices: Ids, size: int) -> None:
        self.indptr: Ids = indptr.astype(np.int64, copy=False)
        self.indices = indices
        self.size = size

    @classmethod
    def of_edges(cls, starts: Ids, ends: Ids, size: int) -> _Reverse:
        order = np.argsort(ends, kind="stable")
        return cls(np.concatenate([[0], np.cumsum(np.bincount(ends, minlength=size))]), starts[order], size)

    def inbound(self, nodes: Ids) -> tuple[Ids, Ids]:
        """For the given nodes, every `(start, end)` of their inbound edges, as two parallel arrays."""
        lengths = self.indptr[nodes + 1] - self.indptr[nodes]
        return self.indices[row_positions(self.indptr, nodes)], np.repeat(nodes, lengths)

    def ancestors(self, targets: Ids) -> Mask:
        seen = np.zeros(self.size, dtype=np.bool_)
        frontier = distinct(targets)
        seen[frontier] = True
        while len(frontier):
            starts, _ = self.inbound(frontier)
            fresh = distinct(starts[~seen[starts]])
            seen[fresh] = True
            frontier = fresh
        return seen

    def propagate(self, chunk: Ids) -> Bits:
        """Bit j of a row is set when that node reaches chunk[j] (chunk: distinct indexes)."""
        within = self.ancestors(chunk)
        bits = np.zeros((self.size, (len(chunk) + 63) // 64), dtype=np.uint64)
        positions = np.arange(len(chunk))
        bits[chunk, positions // 64] = np.left_shift(np.uint64(1), (positions % 64).astype(np.uint64))
        changed = chunk
        while len(changed):
            starts, ends = self.inbound(changed)
            keep = within[starts]
            starts, ends = starts[keep], ends[keep]
            if not len(starts):
                break
            order = np.argsort(starts, kind="stable")
            starts, ends = starts[order], ends[order]
            owners, first = np.unique(starts, return_index=True)
            merged = np.bitwise_or.reduceat(bits[ends], first, axis=0) | bits[owners]
            grew = (merged != bits[owners]).any(axis=1)
            bits[owners] = merged
            changed = owners[grew]
        return bits


def unpack(rows: Bits, width: int) -> NDArray[np.uint8]:
    """Bit rows as a 0/1 matrix of `width` columns (column j = bit j)."""
    if sys.byteorder != "little":
        rows = rows.byteswap()
    return np.unpackbits(np.ascontiguousarray(rows).view(np.uint8), axis=1, bitorder="little")[:, :width]


class Reach:
    def __init__(self, starts: Ids, ends: Ids, extra: Ids) -> None:
        # At a million objects there are some ten million edges, held once (as the forward matrix, int32 dense
        # indexes, repeated edges merged) as soon as they are numbered: the findings step's memory peaks here.
        self.ids, (start_index, end_index, _) = numbered(starts, ends, extra)
        self.size = size = len(self.ids)
        forward = csr_matrix((np.ones(len(start_index), dtype=np.int8), (start_index, end_index)), shape=(size, size))
        del start_index, end_index
        # A node's inbound edges are its column of the forward matrix: the compressed columns are the reverse
        # adjacency, made by a counting pass (sorting the edges by end held an int64 order of them all).
        backward = forward.tocsc()
        self._nodes = _Reverse(backward.indptr, backward.indices, size)
        del backward
        count, labels = connected_components(forward, directed=True, connection="strong")
        self.components: Ids = labels.astype(np.int64)
        # Distinct (start, end) component pairs, each coded as one int64, in (start, end) order.
        starts_at = np.repeat(np.arange(size, dtype=np.int32), np.diff(forward.indptr))
        start_components, end_components = labels[starts_at], labels[forward.indices]
        del starts_at, forward
        between = start_components != end_components
        width = max(int(count), 1)
        codes = distinct(start_components[between].astype(np.int64) * width + end_components[between])
        self._condensed = _Reverse.of_edges(codes // width, codes % width, int(count))

    def index(self, node_ids: Sequence[int] | Ids) -> Ids:
        """Dense indexes of graph ids that are part of the snapshot."""
        return np.searchsorted(self.ids, np.asarray(node_ids, dtype=np.int64)).astype(np.int64)

    def ancestors(self, targets: Ids) -> Mask:
        """Every node with a path (of length 0 or more) into one of `targets` (dense indexes)."""
        return self._nodes.ancestors(targets)

    def reaching(self, components: Ids) -> Iterator[tuple[Ids, Bits]]:
        """Per chunk of distinct components: `(chunk, bits)`, bits[c] having bit j set when component c
        reaches chunk[j]."""
        components = distinct(components)
        for begin in range(0, len(components), CHUNK):
            chunk = components[begin:begin + CHUNK]
            yield chunk, self._condensed.propagate(chunk)
