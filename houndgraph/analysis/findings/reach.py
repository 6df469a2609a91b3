"""Who can reach what, over a snapshot of the traversable edges held as a reverse adjacency (CSR).

Node ids are mapped to dense indexes once. A multi-source reverse breadth-first search answers "which
nodes have a path into this set" (exposure: into Tier Zero) in one walk, a level at a time, each level
one vectorised gather over the CSR arrays.

Impact needs more than one set: for every finding principal, how many eligible principals reach it.
One search per principal is what must not happen, so reachability travels as bits instead: each
principal gets a bit, each node a bit row, and a node's row is its own bit OR the rows of the nodes
it has an edge to. The rows are settled by propagating along reversed edges from the nodes whose
row changed last round (a fixpoint, so cycles need no special care), only over the ancestors found
by one reverse search from all principals. Principals are taken 1024 at a time to bound memory.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence

import numpy as np
from numpy.typing import NDArray

Ids = NDArray[np.int64]
Mask = NDArray[np.bool_]
CHUNK = 1024  # principals per pass: 16 words of bits per node


class Reach:
    def __init__(self, starts: Ids, ends: Ids, extra: Ids) -> None:
        self.ids: Ids = np.unique(np.concatenate([starts, ends, extra]))
        count = len(self.ids)
        start_index, end_index = self.index(starts), self.index(ends)
        # Reverse adjacency: row = an edge's end, columns = the starts of its inbound edges.
        order = np.argsort(end_index, kind="stable")
        self._indices: Ids = start_index[order]
        self._indptr: Ids = np.concatenate([[0], np.cumsum(np.bincount(end_index, minlength=count))]).astype(np.int64)
        self.size = count

    def index(self, node_ids: Sequence[int] | Ids) -> Ids:
        """Dense indexes of graph ids that are part of the snapshot."""
        return np.searchsorted(self.ids, np.asarray(node_ids, dtype=np.int64)).astype(np.int64)

    def _inbound(self, nodes: Ids) -> tuple[Ids, Ids]:
        """For the given nodes, every `(start, end)` of their inbound edges, as two parallel arrays."""
        first, last = self._indptr[nodes], self._indptr[nodes + 1]
        lengths = last - first
        total = int(lengths.sum())
        if total == 0:
            empty = np.empty(0, dtype=np.int64)
            return empty, empty
        offsets = np.repeat(first - np.cumsum(lengths) + lengths, lengths) + np.arange(total, dtype=np.int64)
        return self._indices[offsets], np.repeat(nodes, lengths)

    def ancestors(self, targets: Ids) -> Mask:
        """Every node with a path (of length 0 or more) into one of `targets` (dense indexes)."""
        seen = np.zeros(self.size, dtype=np.bool_)
        frontier = np.unique(targets)
        seen[frontier] = True
        while len(frontier):
            starts, _ = self._inbound(frontier)
            fresh = np.unique(starts[~seen[starts]])
            seen[fresh] = True
            frontier = fresh
        return seen

    def reaching(self, principals: Ids, eligible: Ids) -> Iterator[tuple[Ids, NDArray[np.uint8]]]:
        """Per chunk of principals: `(principal indexes, matrix)` where matrix[i, j] is 1 when eligible[i]
        reaches principals[j] (in the chunk)."""
        principals = np.unique(principals)
        for begin in range(0, len(principals), CHUNK):
            chunk = principals[begin:begin + CHUNK]
            bits = self._propagate(chunk)
            rows = bits[eligible]
            if sys.byteorder != "little":
                rows = rows.byteswap()
            matrix = np.unpackbits(rows.view(np.uint8), axis=1, bitorder="little")[:, :len(chunk)]
            yield chunk, matrix

    def _propagate(self, chunk: Ids) -> NDArray[np.uint64]:
        words = (len(chunk) + 63) // 64
        within = self.ancestors(chunk)
        bits = np.zeros((self.size, words), dtype=np.uint64)
        positions = np.arange(len(chunk))
        bits[chunk, positions // 64] = np.left_shift(np.uint64(1), (positions % 64).astype(np.uint64))
        changed = np.unique(chunk)
        while len(changed):
            starts, ends = self._inbound(changed)
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
