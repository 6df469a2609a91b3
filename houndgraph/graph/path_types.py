"""The shapes the path searches share: paths, edges as keys, walks, and the direction edges are followed in."""

from __future__ import annotations

from enum import StrEnum

# (left end, right end, [node, edge, node, ...] from left to right)
Path = tuple[int, int, list[int]]
# An edge as the searches know it, (start id, kind id, end id): the edge table's unique key. Both of its
# indexes hold it whole, so a level is read from an index alone; the ids of the edges on the paths found
# are read once the paths are known (`_with_edge_ids`).
EdgeKey = tuple[int, int, int]
# [node, edge, node, ...] with edges as keys.
Walk = list[int | EdgeKey]
KeyPath = tuple[int, int, Walk]
# For each node found: (edge, neighbour one step closer to the root) pairs.
Parents = dict[int, list[tuple[EdgeKey, int]]]


class Direction(StrEnum):
    OUT = "out"  # edges point from the left end towards the right end
    IN = "in"
    BOTH = "both"
