"""Shortest paths over an `EdgeProjection`: bidirectional breadth-first search, a level at a time in numpy.

The answer is what `pair_path_edges` (migrations 0025, 0026) answers in PostgreSQL: the edges of every shortest path
from one node to another, as keys (start id, kind id, end id), and how many nodes the search visited. Each side
advances a whole level at a time, the side with fewer edges to read first; the level where the sides meet decides
the length, and the paths are read back from the nodes where they met towards each end, keeping only the edges that
step one level nearer it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from houndgraph.graph.arrays import distinct, row_positions
from houndgraph.graph.projection.csr import EdgeProjection

Array = npt.NDArray[Any]
EdgeKeys = list[tuple[int, int, int]]


class NodeLimitPassed(Exception):
    """The search visited more nodes than it was allowed."""


class _Marks:
    """Per-node depths of a search's two sides, kept between searches: a search claims a fresh mark instead of
    clearing arrays of one entry per node (a node is seen by a side when its mark is the side's)."""

    def __init__(self, nodes: int) -> None:
        self.mark = np.zeros(nodes, dtype=np.int32)
        self.depth = np.zeros(nodes, dtype=np.int32)
        self.last = 0

    def claim(self) -> int:
        if self.last >= 2**31 - 2:
            self.mark[:] = 0
            self.last = 0
        self.last += 1
        return self.last


@dataclass
class _Side:
    """One side of the search: its rows (outgoing edges from the left end, incoming from the right end)."""

    offsets: Array
    nodes: Array
    kinds: Array
    marks: _Marks
    mark: int
    frontier: Array
    level: int = 0

    def seen(self, numbers: Array) -> Array:
        return np.equal(self.marks.mark[numbers], self.mark)

    def depth_of(self, numbers: Array) -> Array:
        return self.marks.depth[numbers]

    def edge_count(self) -> int:
        return int((self.offsets[self.frontier + 1].astype(np.int64) - self.offsets[self.frontier]).sum())


def edges_of(offsets: Array, nodes: Array, kinds: Array, of: Array, allowed: Array | None
              ) -> tuple[Array, Array, Array]:
    """The rows of the nodes `of`: (node of `of`, other end, kind number) for each edge whose kind is allowed."""
    positions = row_positions(offsets, of)
    owners = np.repeat(of, offsets[of + 1].astype(np.int64) - offsets[of])
    edge_kinds = kinds[positions]
    if allowed is not None:
        keep = allowed[edge_kinds]
        positions, owners, edge_kinds = positions[keep], owners[keep], edge_kinds[keep]
    return owners, nodes[positions].astype(np.int64), edge_kinds


def edge_ends(offsets: Array, nodes: Array, kinds: Array, of: Array, allowed: Array | None) -> Array:
    """The other ends of the rows of the nodes `of` whose kind is allowed (`edges_of` without the owners and
    kinds, which a level of a search from one root does not keep)."""
    positions = row_positions(offsets, of)
    if allowed is not None:
        positions = positions[allowed[kinds[positions]]]
    return nodes[positions]


def not_reached(reached: Array, depth: Array) -> Array:
    """The distinct nodes of `reached` (numbers) whose `depth` is 0, sorted. A few are sorted; many are flagged in
    an array of one flag per node, a pass over the nodes, where sorting a level of a million edge ends cost a
    search from one root over the 100k-object graph half its time."""
    if len(reached) * FLAG_PAST < len(depth):
        return distinct(reached[depth[reached] == 0].astype(np.int64))
    flags = np.zeros(len(depth), dtype=bool)
    flags[reached] = True
    flags[depth != 0] = False
    return np.flatnonzero(flags)


# `not_reached` flags rather than sorts when the ends are more than one node in this many.
FLAG_PAST = 16


class PairSearch:
    """Searches of one projection; one per projection, used by one thread at a time (its marks are shared)."""

    def __init__(self, projection: EdgeProjection) -> None:
        self.projection = projection
        self._lock = threading.Lock()
        self._marks = (_Marks(len(projection.node_ids)), _Marks(len(projection.node_ids)))
        self.searches = 0  # searches run (tests tell by it which engine answered)

    def shortest_path_edges(self, left: int, right: int, kind_ids: list[int] | None, max_nodes: int
                            ) -> tuple[int, EdgeKeys]:
        """The nodes visited and the keys of the edges of every shortest path from node id `left` to node id
        `right` (distinct), over edges of `kind_ids` (None: any kind). Raises NodeLimitPassed past `max_nodes`."""
        p = self.projection
        numbers = p.node_numbers(np.array([left, right], dtype=np.int64))
        if numbers[0] < 0 or numbers[1] < 0:
            return 0, []
        allowed = p.kind_mask(kind_ids)
        with self._lock:
            self.searches += 1
            forward = self._side(self._marks[0], p.out_offsets, p.out_nodes, p.out_kinds, int(numbers[0]))
            backward = self._side(self._marks[1], p.in_offsets, p.in_nodes, p.in_kinds, int(numbers[1]))
            visited, meeting = _meet(forward, backward, allowed, max_nodes)
            if meeting is None:
                return visited, []
            return visited, self._edges_back(forward, backward, meeting, allowed)

    @staticmethod
    def _side(marks: _Marks, offsets: Array, nodes: Array, kinds: Array, root: int) -> _Side:
        mark = marks.claim()
        frontier = np.array([root], dtype=np.int64)
        marks.mark[root] = mark
        marks.depth[root] = 0
        return _Side(offsets, nodes, kinds, marks, mark, frontier)

    def _edges_back(self, forward: _Side, backward: _Side, meeting: Array, allowed: Array | None) -> EdgeKeys:
        """From the meeting nodes back to each end, a level at a time: the edges from the nodes one level nearer
        the end onto the nodes already on a path."""
        p = self.projection
        starts: list[Array] = []
        kinds: list[Array] = []
        ends: list[Array] = []
        current = meeting
        for level in range(int(forward.depth_of(meeting[:1])[0]), 0, -1):
            on_path, earlier, kind = edges_of(p.in_offsets, p.in_nodes, p.in_kinds, current, allowed)
            keep = forward.seen(earlier) & (forward.depth_of(earlier) == level - 1)
            starts.append(earlier[keep])
            kinds.append(kind[keep])
            ends.append(on_path[keep])
            current = distinct(earlier[keep])
        current = meeting
        for level in range(int(backward.depth_of(meeting[:1])[0]), 0, -1):
            on_path, later, kind = edges_of(p.out_offsets, p.out_nodes, p.out_kinds, current, allowed)
            keep = backward.seen(later) & (backward.depth_of(later) == level - 1)
            starts.append(on_path[keep])
            kinds.append(kind[keep])
            ends.append(later[keep])
            current = distinct(later[keep])
        if not starts:
            return []
        start_ids = p.node_ids[np.concatenate(starts)]
        kind_ids = p.kind_ids[np.concatenate(kinds)]
        end_ids = p.node_ids[np.concatenate(ends)]
        return list(zip(start_ids.tolist(), kind_ids.tolist(), end_ids.tolist(), strict=True))


def _meet(forward: _Side, backward: _Side, allowed: Array | None, max_nodes: int) -> tuple[int, Array | None]:
    """Advance the sides, the one with fewer edges to read first, until they meet: the nodes visited, and the
    nodes where every shortest path crosses the level just reached (None: not connected)."""
    visited = 0
    while len(forward.frontier) and len(backward.frontier):
        side, other = (forward, backward) if forward.edge_count() <= backward.edge_count() else (backward, forward)
        _, reached, _ = edges_of(side.offsets, side.nodes, side.kinds, side.frontier, allowed)
        fresh = distinct(reached[~side.seen(reached)])
        side.level += 1
        side.marks.mark[fresh] = side.mark
        side.marks.depth[fresh] = side.level
        side.frontier = fresh
        visited += len(fresh)
        if visited > max_nodes:
            raise NodeLimitPassed(f"the search visited more than {max_nodes} nodes")
        met = fresh[other.seen(fresh)]
        if len(met):
            # Nodes the other side reached earliest lie on the shortest paths; a node of the other side's frontier
            # reached here first would have been met a level ago.
            depths = other.depth_of(met)
            return visited, met[depths == depths.min()]
    return visited, None
