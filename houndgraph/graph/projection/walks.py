"""Shortest paths from a few roots to many goals over an `EdgeProjection`, for `graph.paths.shortest_path_batches`.

A breadth-first search from each root, a level at a time, keeps each node's depth. After each level, the goals it
reached get their paths: one, along each node's parent (its first edge from the level before: the lowest-numbered
node, then the lowest kind, whatever order PostgreSQL returned the edges in when the copy was read; the edge that
reached it first), or every one (the edges from the level before, from the goal back to the root). The search ends
when every goal is reached, at `max_depth`, or when the graph runs out; the budget is drawn on as in PostgreSQL's
search.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from houndgraph.graph.arrays import distinct
from houndgraph.graph.budget import WorkBudget
from houndgraph.graph.projection.csr import EdgeProjection
from houndgraph.graph.projection.search import edge_ends, edges_of, not_reached

Array = npt.NDArray[Any]
EdgeKey = tuple[int, int, int]
Walk = list[Any]  # [node, edge key, node, ...]
KeyPath = tuple[int, int, Walk]  # (left end, right end, walk from left to right)

# Searches from more roots than this run in PostgreSQL, whose search shares work between the goals' sides...
MAX_ROOTS = 4
# ... unless the copy is so small that a walk of all of it from every root costs less than PostgreSQL's statements
# (roots times edges): on the labs of ../shared/data, all 34 users -> the 35 Tier Zero members took 150 ms of short
# statements in PostgreSQL, 44 ms from the copy.
SMALL_WALKS = 2_000_000


class Levels:
    """One root's breadth-first search: over outgoing edges (the root is the left end of its paths) or incoming ones
    (the right end)."""

    def __init__(self, projection: EdgeProjection, root: int, outgoing: bool, allowed: Array | None) -> None:
        p = self.projection = projection
        nodes = len(p.node_ids)
        self.outgoing, self.allowed = outgoing, allowed
        self.rows = (p.out_offsets, p.out_nodes, p.out_kinds) if outgoing else (p.in_offsets, p.in_nodes, p.in_kinds)
        self.back = (p.in_offsets, p.in_nodes, p.in_kinds) if outgoing else (p.out_offsets, p.out_nodes, p.out_kinds)
        # Zeroed pages cost nothing until written: a search pays for the nodes it reaches.
        self.depth = np.zeros(nodes, dtype=np.int32)  # depth + 1; 0: not reached
        self.level = 0
        self.root = root
        self.depth[root] = 1
        self.frontier = np.array([root], dtype=np.int64)

    def advance(self) -> Array:
        """The nodes one level further (sorted numbers). Only their depth is kept: the parents of the few nodes on
        the paths wanted are found afterwards (`parents`), which costs less than keeping every node's."""
        fresh = not_reached(edge_ends(*self.rows, self.frontier, self.allowed), self.depth)
        self.level += 1
        self.depth[fresh] = self.level + 1
        self.frontier = fresh
        return fresh

    def parents(self, nodes: Array) -> tuple[Array, Array]:
        """For each of `nodes` (reached, none the root), its parent and the kind number of the edge from it: the
        first of its edges back (by other end, then kind) whose other end is one level nearer the root."""
        distinct_nodes, each = np.unique(nodes, return_inverse=True)
        owners, nearer, kinds = edges_of(*self.back, distinct_nodes, self.allowed)
        keep = self.depth[nearer] == self.depth[owners] - 1
        owners, nearer, kinds = owners[keep], nearer[keep], kinds[keep]
        # Owners come in the order of `distinct_nodes`, each with at least one such edge: its first row.
        first = np.flatnonzero(np.concatenate(([True], owners[1:] != owners[:-1])))
        return nearer[first][each], kinds[first][each]

    def key(self, node: int, nearer: int, kind: int) -> EdgeKey:
        """The edge between `node` and `nearer` (one level nearer the root), as (start id, kind id, end id)."""
        ids, kind_id = self.projection.node_ids, int(self.projection.kind_ids[kind])
        if self.outgoing:
            return int(ids[nearer]), kind_id, int(ids[node])
        return int(ids[node]), kind_id, int(ids[nearer])

    def walks_along_parents(self, goals: Array) -> list[Walk]:
        """For each of `goals` (all of this level), the path along the parents, from the left end to the right:
        the parents of every goal are followed a level at a time together."""
        nodes = [goals]
        kinds = []
        for _ in range(self.level):
            parent, kind = self.parents(nodes[-1])
            kinds.append(kind)
            nodes.append(parent)
        ids = self.projection.node_ids[np.stack(nodes, axis=1)].tolist()  # goal first, root last
        kind_ids = self.projection.kind_ids[np.stack(kinds, axis=1)].tolist()
        walks: list[Walk] = []
        for path_ids, path_kinds in zip(ids, kind_ids, strict=True):
            walk: Walk = [path_ids[0]]
            for step, kind in enumerate(path_kinds):
                node, nearer = path_ids[step], path_ids[step + 1]
                walk += [(nearer, kind, node) if self.outgoing else (node, kind, nearer), nearer]
            walks.append(walk[::-1] if self.outgoing else walk)
        return walks

    def every_walk(self, goals: Array, budget: WorkBudget) -> list[list[Walk]]:
        """For each of `goals` (all of this level), every shortest path to it, from the left end to the right. The
        edges back to the root are read for all of them together, a level at a time, and the paths from a node on
        the way are made once, whichever goals they lead to (all enabled users -> Domain Admins: a group's)."""
        following: dict[int, list[tuple[EdgeKey, int]]] = {}  # node -> (edge, node one level nearer the root)
        current = goals
        for level in range(self.level, 0, -1):
            on_path, nearer, kinds = edges_of(*self.back, current, self.allowed)
            keep = self.depth[nearer] == level
            for node, near, kind in zip(on_path[keep].tolist(), nearer[keep].tolist(), kinds[keep].tolist(),
                                        strict=True):
                following.setdefault(node, []).append((self.key(node, near, kind), near))
            current = distinct(nearer[keep])
        for links in following.values():
            links.sort()
        ids = self.projection.node_ids
        counts: dict[int, int] = {self.root: 1}
        made: dict[int, list[Walk]] = {self.root: [[int(ids[self.root])]]}

        def count(node: int) -> int:
            if node not in counts:
                counts[node] = sum(count(near) for _, near in following.get(node, ()))
            return counts[node]

        def walks_to_root(node: int) -> list[Walk]:
            if node not in made:
                node_id = int(ids[node])
                made[node] = [[node_id, key, *rest] for key, near in following.get(node, ())
                              for rest in walks_to_root(near)]
            return made[node]

        every: list[list[Walk]] = []
        for goal in goals.tolist():
            # Drawn on before the paths are made: a goal of too many paths is refused before they take memory.
            budget.found(count(goal) * (2 * self.level + 1))
            every.append([walk[::-1] for walk in walks_to_root(goal)] if self.outgoing else walks_to_root(goal))
        return every


def batches(projection: EdgeProjection, roots: list[int], goals: set[int], *, roots_on_left: bool,
            kind_ids: list[int] | None, max_depth: int | None, all_paths: bool, budget: WorkBudget
            ) -> Iterator[list[list[KeyPath]]]:
    """For each root (node ids, in order) and each level of its search, the paths of the goals it reached at that
    level, a batch per goal (goals in id order): as `graph.paths.shortest_path_batches` hands them out, edges as
    keys. Edges are followed forward from the left end."""
    allowed = projection.kind_mask(kind_ids)
    goal_numbers = projection.node_numbers(np.array(sorted(goals), dtype=np.int64))
    goal_numbers = goal_numbers[goal_numbers >= 0]
    for root_id, root in zip(roots, projection.node_numbers(np.array(roots, dtype=np.int64)).tolist(), strict=True):
        if root < 0:
            continue
        # The goals not reached yet, by node number: a level's are picked out of it in one step.
        wanted = np.zeros(len(projection.node_ids), dtype=bool)
        wanted[goal_numbers] = True
        wanted[root] = False
        remaining = int(wanted.sum())
        search = Levels(projection, root, roots_on_left, allowed)
        while len(search.frontier) and remaining and (max_depth is None or search.level < max_depth):
            budget.check_time()
            fresh = search.advance()
            budget.visit(len(fresh))
            met = fresh[wanted[fresh]]
            if not len(met):
                continue
            wanted[met] = False
            remaining -= len(met)
            yield level_paths(search, root_id, met, all_paths, budget)


def level_paths(search: Levels, root_id: int, met: Array, all_paths: bool, budget: WorkBudget) -> list[list[KeyPath]]:
    """The paths of the goals `met` (node numbers of the level `search` has just reached, sorted), a batch per goal
    in node id order (numbers follow ids)."""
    goals_met = search.projection.node_ids[met].tolist()
    if all_paths:
        walks = search.every_walk(met, budget)
    else:
        walks = [[walk] for walk in search.walks_along_parents(met)]
        budget.found(sum(len(found[0]) for found in walks))
    return [[(root_id, goal, walk) if search.outgoing else (goal, root_id, walk) for walk in found]
            for goal, found in zip(goals_met, walks, strict=True)]
