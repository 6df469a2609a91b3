"""Before a shortest-path search with no LIMIT: whether its answer must pass the path budget.

"Every principal to Tier Zero" finds one path per connected (source, target) pair, millions of them at 100k
objects, and `graph_paths.shortest_path_batches` (one search per root, the smaller side's nodes in id order)
only learns that its paths hold more members than the budget allows after several full traversals. This
reads the same numbers cheaply and refuses first: breadth-first searches from the same roots in the same
order, one root and then as many as seem needed (up to 63, one bit per root; each level one statement that
ORs the bits of the edges' far ends), count for each root the pairs it connects and their shortest distance
d. A pair's path holds at least 2d + 1 members (its nodes and edges; the search counts a little more where two
searches meet), so the members of the roots searched so far are a lower bound of what the search counts by the
time it has finished those roots. At 100k objects one root of "every node to Domain Admins" decides it: one
traversal where the search made several and walked every path.

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

from houndgraph.graph import paths as graph_paths
from houndgraph.graph.budget import WorkBudget
from houndgraph.graph.connection import GraphConnection, int_array

# Each connected pair's path is taken to hold this many members when deciding whether a bound is worth its
# traversal: when even that many fit the budget, the search runs without one (it keeps the budget itself).
PAIR_MEMBERS_GUESS = 3

# At most this many roots searched together: one bit each in a bigint, the sign bit left alone.
ROOTS_PER_SEARCH = 63

# A level whose frontier carries at most this many distinct sets of bits reads each set's nodes as one array
# (an index scan per set, grouped in SQL); more, and the bits are joined to the edges found instead.
BIT_SETS_APART = 8


def _level(frontier: dict[int, int], direction: graph_paths.Direction, from_left: bool, kinds: str | None
           ) -> tuple[str, dict[str, str]]:
    """A statement of (neighbour, OR of the bits of the frontier nodes it is next to) for the frontier
    {node: bits}, and its parameters."""
    kind = " AND kind_id = ANY(%(kinds)s::smallint[])" if kinds is not None else ""
    params = {"kinds": kinds or "{}"}
    forwards = []
    if direction in (graph_paths.Direction.OUT, graph_paths.Direction.BOTH):
        forwards.append(from_left)
    if direction in (graph_paths.Direction.IN, graph_paths.Direction.BOTH):
        forwards.append(not from_left)
    by_bits: dict[int, list[int]] = {}
    for node, bits in frontier.items():
        by_bits.setdefault(bits, []).append(node)
    selects = []
    for forward in forwards:
        near, far = ("start_id", "end_id") if forward else ("end_id", "start_id")
        if len(by_bits) <= BIT_SETS_APART:
            for index, (bits, nodes) in enumerate(by_bits.items()):
                selects.append(f"SELECT {far} AS far, {int(bits)}::bigint AS bits FROM edge "
                               f"WHERE {near} = ANY(%(n{index})s::bigint[]){kind}")
                params[f"n{index}"] = int_array(nodes)
        else:
            selects.append(f"SELECT e.{far} AS far, f.bits FROM edge AS e "
                           f"JOIN unnest(%(nodes)s::bigint[], %(bits)s::bigint[]) AS f(node, bits) "
                           f"ON f.node = e.{near} "
                           f"WHERE e.{near} = ANY(%(nodes)s::bigint[]){kind.replace('kind_id', 'e.kind_id')}")
            params["nodes"], params["bits"] = int_array(list(frontier)), int_array(list(frontier.values()))
    return f"SELECT far, bit_or(bits) FROM ({' UNION ALL '.join(selects)}) AS found GROUP BY far", params


async def _root_figures(conn: GraphConnection, roots: Sequence[int], goals: set[int],
                        direction: graph_paths.Direction, from_left: bool, kinds: str | None,
                        max_depth: int | None, budget: WorkBudget) -> list[tuple[int, int]]:
    """For each root: (pairs it connects to `goals` other than itself, the sum of 2d + 1 over them)."""
    seen = {root: 1 << bit for bit, root in enumerate(roots)}
    frontier = dict(seen)
    pairs, members = [0] * len(roots), [0] * len(roots)
    level = 0
    while frontier and (max_depth is None or level < max_depth):
        budget.check_time()
        level += 1
        cursor = await conn.execute(*_level(frontier, direction, from_left, kinds))
        reached: dict[int, int] = {}
        for node, bits in await cursor.fetchall():
            old = seen.get(node, 0)
            if new := bits & ~old:
                seen[node] = old | new
                reached[node] = new
                if node in goals:
                    while new:
                        bit = (new & -new).bit_length() - 1
                        pairs[bit] += 1
                        members[bit] += 2 * level + 1
                        new &= new - 1
        frontier = reached
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
    ordered = sorted(roots)
    start = 0
    while start < len(ordered):
        # One root first (at 100k objects a root to Tier Zero passes the budget alone), then, sharing one
        # traversal, twice as many roots as the members found per root so far say are still needed.
        size = 1 if start == 0 else _roots_wanted(budget.max_path_members - members, (members - first) / start)
        batch = ordered[start:start + size]
        start += len(batch)
        figures = await _root_figures(conn, batch, others, direction, from_left, kinds, max_depth, budget)
        for root_pairs, root_members in figures:
            paths += root_pairs
            members += root_members
            if rows_at is not None and paths >= rows_at:
                return  # the caller may look at its rows before the budget runs out
            if members > budget.max_path_members:
                budget.found(members - budget.path_members)  # raises WorkExhausted as the search would
