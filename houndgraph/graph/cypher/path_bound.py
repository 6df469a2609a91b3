"""Before a shortest-path search with no LIMIT: whether its answer must pass the path budget.

"Every principal to Tier Zero" finds one path per connected (source, target) pair, millions of them at 100k
objects, and `graph_paths.shortest_path_batches` (one search per root, the smaller side's nodes in id order)
only learns that its paths hold more members than the budget allows after several full traversals. This
reads the same numbers cheaply and refuses first: breadth-first searches from the same roots in the same
order, one root and then as many as seem needed (up to 63, one bit per root), count for each root the pairs
it connects and their shortest distance d. A pair's path holds at least 2d + 1 members (its nodes and edges;
the search counts a little more where two searches meet), so the members of the roots searched so far are a
lower bound of what the search counts by the time it has finished those roots. At 100k objects one root of
"every node to Domain Admins" decides it.

The traversals run in memory over the search's edges, read once in one statement (`Adjacency`): at 100k
objects a level of a whole-graph traversal as one statement over its frontier took 0.1-2 s, and "Kerberoastable
users to every computer" took 14 of them (4.9 s) before it was refused; the edges of the 49 AD kinds, a
million of them, read as two byte strings in 0.3 s and a traversal over them takes milliseconds.

The refusal must be the one the search gives. The search is refused with `WorkExhausted` (the path budget,
a node budget, or the deadline: one answer) unless its caller refuses the rows first: a query with no LIMIT
(`statement._run_limited`) runs its statement once the paths found reach `rows_at` and answers
`ResultTooLarge` when it has too many rows. So the bound refuses only when the roots up to the one where the
members pass the budget connect fewer than `rows_at` pairs: the search cannot have handed its caller that
many paths before its budget ran out. Otherwise (or when the members stay within the budget) the search runs
as before and gives the answer it always gave.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from houndgraph.graph import edge_ends
from houndgraph.graph import paths as graph_paths
from houndgraph.graph.arrays import numbered, row_positions
from houndgraph.graph.budget import WorkBudget
from houndgraph.graph.connection import GraphConnection, int_array

# Each connected pair's path is taken to hold this many members when deciding whether a bound is worth its
# traversal: when even that many fit the budget, the search runs without one (it keeps the budget itself).
PAIR_MEMBERS_GUESS = 3

# At most this many roots searched together: one bit each in a 64-bit word, the sign bit left alone.
ROOTS_PER_SEARCH = 63

# Node ids index the traversal's arrays directly while the largest is at most this many times the number of
# ids it could hold (ids left by deleted nodes cost a little memory each); past it they are renumbered.
SPARSE_IDS = 4


@dataclass
class Adjacency:
    """The edges a traversal follows, by the node they are followed from: the far ends of node i's edges are
    `far[first[i]:first[i + 1]]`, nodes numbered by `index` (node ids -> 0..n-1)."""

    first: NDArray[np.int64]
    far: NDArray[np.int64]
    ids: NDArray[np.int64] | None  # the node id of each number, or None when numbers are node ids

    @staticmethod
    async def read(conn: GraphConnection, kinds: str | None, near_is_start: Sequence[bool], extra: Sequence[int]
                   ) -> Adjacency:
        """The edges (of `kinds`, or all) followed from their start (True) and/or end (False); `extra`: ids the
        numbering must hold besides the edges' ends (roots and goals without edges)."""
        where = " WHERE kind_id = ANY(%(kinds)s::smallint[])" if kinds is not None else ""
        async with conn.cursor(binary=True) as cursor:
            await cursor.execute(edge_ends.LARGEST_NODE_ID)
            largest = await cursor.fetchone()
            narrow = edge_ends.fits_narrow(largest and largest[0])
            await cursor.execute(edge_ends.statement(narrow, where), {"kinds": kinds or "{}"})
            texts = edge_ends.columns(await cursor.fetchone())
        starts, ends = edge_ends.decoded(texts, narrow, np.int64)
        nears = np.concatenate([starts if forward else ends for forward in near_is_start])
        fars = np.concatenate([ends if forward else starts for forward in near_is_start])
        known = np.asarray(extra, dtype=np.int64)
        top = int(max(nears.max(initial=0), fars.max(initial=0), known.max(initial=0)))
        ids = None
        if top + 1 > SPARSE_IDS * (len(nears) + len(known) + 1):
            ids, (near_numbers, far_numbers, _) = numbered(nears, fars, known)
            nears, fars = near_numbers.astype(np.int64), far_numbers.astype(np.int64)
            top = len(ids) - 1
        order = np.argsort(nears, kind="stable")
        first = np.zeros(top + 2, dtype=np.int64)
        np.cumsum(np.bincount(nears, minlength=top + 1), out=first[1:])
        return Adjacency(first, fars[order], ids)

    @property
    def size(self) -> int:
        return len(self.first) - 1

    def index(self, node_ids: Sequence[int]) -> NDArray[np.int64]:
        values = np.asarray(node_ids, dtype=np.int64)
        return values if self.ids is None else np.searchsorted(self.ids, values)

    def level(self, frontier: NDArray[np.int64], bits: NDArray[np.uint64], ors: NDArray[np.uint64]
              ) -> tuple[NDArray[np.int64], NDArray[np.uint64]]:
        """The nodes next to `frontier` (each node once) and the OR of the `bits` of the frontier nodes each is
        next to. `ors`: zeros, one per node, lent as the OR's workspace and left as zeros."""
        fars = self.far[row_positions(self.first, frontier)]
        np.bitwise_or.at(ors, fars, np.repeat(bits, self.first[frontier + 1] - self.first[frontier]))
        reached = np.flatnonzero(ors)
        found = ors[reached]
        ors[reached] = 0
        return reached, found


def _root_figures(graph: Adjacency, roots: Sequence[int], goals: NDArray[np.bool_], max_depth: int | None,
                  budget: WorkBudget) -> list[tuple[int, int]]:
    """For each root: (pairs it connects to `goals` other than itself, the sum of 2d + 1 over them)."""
    seen, ors = np.zeros(graph.size, dtype=np.uint64), np.zeros(graph.size, dtype=np.uint64)
    frontier = graph.index(roots)
    bits = np.left_shift(np.uint64(1), np.arange(len(roots), dtype=np.uint64))
    seen[frontier] = bits
    pairs, members = [0] * len(roots), [0] * len(roots)
    level = 0
    while len(frontier) and (max_depth is None or level < max_depth):
        budget.check_time()
        level += 1
        reached, found = graph.level(frontier, bits, ors)
        new = found & ~seen[reached]
        keep = new != 0
        frontier, bits = reached[keep], new[keep]
        seen[frontier] |= bits
        at_goals = bits[goals[frontier]]
        for bit in range(len(roots)):
            count = int(np.count_nonzero(at_goals & np.uint64(1 << bit)))
            pairs[bit] += count
            members[bit] += count * (2 * level + 1)
    return list(zip(pairs, members, strict=True))


def _roots_wanted(missing: int, per_root: float) -> int:
    """How many roots the next traversal takes: twice what `per_root` members each make up for `missing`."""
    if per_root <= 0:
        return ROOTS_PER_SEARCH
    return max(1, min(ROOTS_PER_SEARCH, math.ceil(2 * missing / per_root)))


async def refuse_past_path_budget(conn: GraphConnection, lefts: Sequence[int], rights: Sequence[int], *,
                                  kind_ids: Sequence[int] | None, direction: graph_paths.Direction,
                                  min_depth: int, max_depth: int | None, all_paths: bool, budget: WorkBudget,
                                  rows_at: int | None) -> None:
    """Raise `WorkExhausted` as `graph_paths.shortest_paths(...)` over these ends would, when it surely would
    (see the module's note); return when it may not. `rows_at`: the number of paths at which the caller
    looks at its rows (None: it waits for the whole search)."""
    left_set, right_set = set(lefts), set(rights)
    if len(left_set) <= 1 and len(right_set) <= 1:
        return  # one pair: one path at most
    if all_paths and rows_at is not None:
        return  # several paths per pair: the paths may reach `rows_at` before the pairs do
    from_left = len(left_set) <= len(right_set)
    roots, others = (left_set, right_set) if from_left else (right_set, left_set)
    if len(roots) * len(others) * PAIR_MEMBERS_GUESS <= budget.max_path_members - budget.path_members:
        return
    # A node's empty path to itself (min_depth 0) comes first, and counts as a row but not as members.
    paths = len(left_set & right_set) if min_depth == 0 else 0
    members = first = budget.path_members
    kinds = None if kind_ids is None else int_array(list(kind_ids))
    # Edges point from the left end to the right: a search from the left follows them from their start.
    forwards = []
    if direction in (graph_paths.Direction.OUT, graph_paths.Direction.BOTH):
        forwards.append(from_left)
    if direction in (graph_paths.Direction.IN, graph_paths.Direction.BOTH):
        forwards.append(not from_left)
    budget.check_time()
    graph = await Adjacency.read(conn, kinds, forwards, [*roots, *others])
    goals = np.zeros(graph.size, dtype=np.bool_)
    goals[graph.index(sorted(others))] = True
    ordered = sorted(roots)
    start = 0
    while start < len(ordered):
        # One root first (at 100k objects a root to Tier Zero passes the budget alone), then, sharing one
        # traversal, twice as many roots as the members found per root so far say are still needed.
        size = 1 if start == 0 else _roots_wanted(budget.max_path_members - members, (members - first) / start)
        batch = ordered[start:start + size]
        start += len(batch)
        for root_pairs, root_members in _root_figures(graph, batch, goals, max_depth, budget):
            paths += root_pairs
            members += root_members
            if rows_at is not None and paths >= rows_at:
                return  # the caller may look at its rows before the budget runs out
            if members > budget.max_path_members:
                budget.found(members - budget.path_members)  # raises WorkExhausted as the search would
