"""Shortest paths over the edge table: breadth-first search with one batched query per level.

One source and one target: bidirectional BFS; while both frontiers are small both sides advance in the
same query (one round trip per two levels), then the smaller one. Many sources and few targets (the
everyday "all users -> Domain Admins"): one reverse BFS per target that reaches every source at once,
never a search per pair, until only a few far sources are left (those then search toward it, all at once);
the mirror image when targets outnumber sources. `all_paths` keeps every parent at the shortest depth
(allShortestPaths). `shortest_path_batches` hands out the paths nearest first, so that a query with a
LIMIT stops the search once it has its rows. DESIGN.md gives the measurements behind this.

Every search draws on a `WorkBudget` (nodes visited, path members found, the deadline), checked at each
level and while paths are enumerated, so an all-pairs search stops with `WorkExhausted` rather than
growing without bound.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from houndgraph.graph.budget import WorkBudget
from houndgraph.graph.connection import GraphConnection

# (left end, right end, [node, edge, node, ...] from left to right)
Path = tuple[int, int, list[int]]
# For each node found: (edge id, neighbour one step closer to the root) pairs.
Parents = dict[int, list[tuple[int, int]]]


class Direction(StrEnum):
    OUT = "out"  # edges point from the left end towards the right end
    IN = "in"
    BOTH = "both"


@dataclass
class _Search:
    """One BFS side: its visited nodes with their parents toward the root, and its frontier."""

    root: set[int]
    parents: Parents = field(default_factory=dict)
    depth: dict[int, int] = field(default_factory=dict)
    frontier: list[int] = field(default_factory=list)
    level: int = 0

    def __post_init__(self) -> None:
        for node in self.root:
            self.parents[node] = []
            self.depth[node] = 0
        self.frontier = sorted(self.root)


# While neither frontier of a bidirectional search holds more nodes than this, both sides advance in one
# query (one round trip per two levels: a user's groups and Domain Admins' members); past it only the
# smaller side does, since a large frontier costs more than a round trip.
JOINT_EXPANSION = 256

# A search from one root towards many goals lets the goals it has not reached search toward it once its
# frontier holds more than this many nodes per node on the goals' frontiers (a level costs about its
# frontier's size; the goals' searches cost a little more per node, each being kept apart).
PAIR_SEARCH_COST = 1

Rows = list[tuple[int, int, int]]  # (node in a frontier, edge, neighbour)


async def _neighbours(conn: GraphConnection, frontier: list[int], forward: bool,
                      kind_ids: Sequence[int] | None) -> Rows:
    """(node in frontier, edge, neighbour) for one level, in one query."""
    (rows,) = await _level(conn, [(frontier, forward)], kind_ids)
    return rows


async def _level(conn: GraphConnection, steps: Sequence[tuple[list[int], bool]],
                 kind_ids: Sequence[int] | None) -> list[Rows]:
    """The rows of each (frontier, forward) step, all steps in one query."""
    kinds = " AND kind_id = ANY(%(kinds)s::smallint[])" if kind_ids is not None else ""
    params: dict[str, list[int]] = {"kinds": list(kind_ids or [])}
    selects = []
    for index, (frontier, forward) in enumerate(steps):
        near, far = ("start_id", "end_id") if forward else ("end_id", "start_id")
        selects.append(f"SELECT {index}, {near}, id, {far} FROM edge WHERE {near} = ANY(%(f{index})s::bigint[]){kinds}")
        params[f"f{index}"] = frontier
    cursor = await conn.execute(" UNION ALL ".join(selects), params)
    found: list[Rows] = [[] for _ in steps]
    for index, node, edge, neighbour in await cursor.fetchall():
        found[index].append((node, edge, neighbour))
    return found


async def _expand(conn: GraphConnection, sides: Sequence[tuple[_Search, bool]], direction: Direction,
                  kind_ids: Sequence[int] | None, all_paths: bool, budget: WorkBudget) -> list[list[int]]:
    """Advance each (side, whether it grows from the left end) by one level, all in one query; returns
    each side's newly reached nodes."""
    budget.check_time()
    steps: list[tuple[list[int], bool]] = []
    for side, from_left in sides:
        if direction in (Direction.OUT, Direction.BOTH):
            steps.append((side.frontier, from_left))
        if direction in (Direction.IN, Direction.BOTH):
            steps.append((side.frontier, not from_left))
    found = iter(await _level(conn, steps, kind_ids))
    per_side = 2 if direction is Direction.BOTH else 1
    return [_advance(side, [row for _ in range(per_side) for row in next(found)], all_paths, budget)
            for side, _ in sides]


def _advance(side: _Search, rows: Rows, all_paths: bool, budget: WorkBudget) -> list[int]:
    side.level += 1
    reached: list[int] = []
    for node, edge, neighbour in rows:
        depth = side.depth.get(neighbour)
        if depth is None:
            side.depth[neighbour] = side.level
            side.parents[neighbour] = [(edge, node)]
            reached.append(neighbour)
        elif depth == side.level and all_paths and (edge, node) not in side.parents[neighbour]:
            side.parents[neighbour].append((edge, node))
    side.frontier = reached
    budget.visit(len(reached))
    return reached


def _walks(parents: Parents, node: int, all_paths: bool, budget: WorkBudget) -> Iterator[list[int]]:
    for walk in _unbounded_walks(parents, node, all_paths):
        budget.found(len(walk))
        yield walk


def _unbounded_walks(parents: Parents, node: int, all_paths: bool) -> Iterator[list[int]]:
    """Sequences [node, edge, node, ..., root] following parent links from `node`."""
    links = parents[node]
    if not links:
        yield [node]
        return
    for edge, parent in links if all_paths else links[:1]:
        for rest in _unbounded_walks(parents, parent, all_paths):
            yield [node, edge, *rest]


async def shortest_paths(conn: GraphConnection, lefts: Sequence[int], rights: Sequence[int], *,
                         kind_ids: Sequence[int] | None, direction: Direction = Direction.OUT,
                         min_depth: int = 1, max_depth: int | None = None,
                         all_paths: bool = False, budget: WorkBudget | None = None) -> list[Path]:
    """Shortest paths for every (left, right) pair that is connected; one path per pair unless
    `all_paths`. A pair of a node with itself has the empty path when `min_depth` is 0. Paths come
    ordered by their root (the end on the smaller side), then by their other end.

    Raises WorkExhausted when the search passes `budget` (by default: the library's node and path limits)."""
    found: list[Path] = []
    from_left = len(set(lefts)) <= len(set(rights))
    async for batch in shortest_path_batches(conn, lefts, rights, kind_ids=kind_ids, direction=direction,
                                             min_depth=min_depth, max_depth=max_depth, all_paths=all_paths,
                                             budget=budget):
        found.extend(batch)
    # Batches come nearest first. A stable sort keeps each pair's paths in order; a node's empty path to
    # itself (min_depth 0) stays first.
    if from_left:
        return sorted(found, key=lambda p: (p[0] != p[1], p[0], p[1]))
    return sorted(found, key=lambda p: (p[0] != p[1], p[1], p[0]))


async def shortest_path_batches(conn: GraphConnection, lefts: Sequence[int], rights: Sequence[int], *,
                                kind_ids: Sequence[int] | None, direction: Direction = Direction.OUT,
                                min_depth: int = 1, max_depth: int | None = None, all_paths: bool = False,
                                budget: WorkBudget | None = None) -> AsyncGenerator[list[Path], None]:
    """The paths of `shortest_paths` as the search finds them: each batch holds every path of the pairs
    it names, nearest pairs of a root first. A caller that needs only some paths (a query with LIMIT)
    stops iterating once it has enough, and the search goes no deeper."""
    budget = budget or WorkBudget()
    left_set, right_set = set(lefts), set(rights)
    if min_depth == 0 and left_set & right_set:
        yield [(n, n, [n]) for n in sorted(left_set & right_set)]
    if not left_set or not right_set:
        return
    if len(left_set) == 1 and len(right_set) == 1:
        (left,), (right,) = left_set, right_set
        if left != right:
            yield await _bidirectional(conn, left, right, kind_ids, direction, max_depth, all_paths, budget)
        return
    from_left = len(left_set) <= len(right_set)
    roots, others = (left_set, right_set) if from_left else (right_set, left_set)
    for root in sorted(roots):
        async for batch in _single_root(conn, root, others - {root}, from_left, kind_ids, direction, max_depth,
                                        all_paths, budget):
            yield batch


async def _single_root(conn: GraphConnection, root: int, goals: set[int], from_left: bool,
                       kind_ids: Sequence[int] | None, direction: Direction, max_depth: int | None,
                       all_paths: bool, budget: WorkBudget) -> AsyncGenerator[list[Path], None]:
    """One search from `root`; after each level, the paths of each goal it reached (one batch per goal:
    a goal's parents are complete once its level is expanded). Once the root's frontier outgrows the goals
    not reached yet, those grow searches of their own toward it (`_GoalSearches`), and from then on the
    side with the smaller frontier advances: a few sparse goals (Kerberoastable users, owned principals)
    meet the root's search a level or two from themselves instead of the root's search covering the graph."""
    side = _Search({root})
    remaining = set(goals)
    goal_searches: _GoalSearches | None = None
    while side.frontier and remaining:
        levels = side.level + (goal_searches.level if goal_searches else 0)
        if max_depth is not None and levels >= max_depth:
            return
        if goal_searches is None and len(remaining) * PAIR_SEARCH_COST < len(side.frontier):
            goal_searches = _GoalSearches(remaining)
        if goal_searches is not None and goal_searches.cost() * PAIR_SEARCH_COST < len(side.frontier):
            met = await goal_searches.expand(conn, side, not from_left, kind_ids, direction, all_paths, budget)
            # A goal whose search ended without meeting the root's cannot reach it: the root's search only
            # enters what the goal's search has covered through nodes that search has covered already.
            remaining.difference_update(goal_searches.drop_ended(met))
        else:
            (reached,) = await _expand(conn, [(side, from_left)], direction, kind_ids, all_paths, budget)
            if goal_searches is None:
                for goal in sorted(remaining.intersection(reached)):
                    remaining.discard(goal)
                    # The walk runs goal -> root; paths read left to right.
                    yield [(root, goal, walk[::-1]) if from_left else (goal, root, walk)
                           for walk in _walks(side.parents, goal, all_paths, budget)]
                continue
            met = goal_searches.met_by(reached)
        for goal in sorted(met):
            search = goal_searches.finish(goal)
            remaining.discard(goal)
            forward, backward = (side, search) if from_left else (search, side)
            left, right = (root, goal) if from_left else (goal, root)
            yield _joined(forward, backward, left, right, met[goal], all_paths, budget)


class _GoalSearches:
    """The searches of the goals a root's search has not reached, each from its goal toward the root; all
    advance by one level in one query (the edges of the nodes on any of their frontiers, read once)."""

    def __init__(self, goals: set[int]) -> None:
        self.searches = {goal: _Search({goal}) for goal in sorted(goals)}
        # For each node some goal's search has reached: those goals (the root's search meets them there).
        self.reached_by: dict[int, list[int]] = {goal: [goal] for goal in goals}
        self.level = 0

    def cost(self) -> int:
        return sum(len(search.frontier) for search in self.searches.values())

    def finish(self, goal: int) -> _Search:
        return self.searches.pop(goal)

    def drop_ended(self, met: dict[int, list[int]]) -> list[int]:
        """Drops the searches that have nowhere left to go and did not meet the root's; returns their goals."""
        ended = [goal for goal, search in self.searches.items() if not search.frontier and goal not in met]
        for goal in ended:
            del self.searches[goal]
        return ended

    def met_by(self, reached: list[int]) -> dict[int, list[int]]:
        """The goals whose searches have reached a node the root's search reached just now, with those nodes."""
        met: dict[int, list[int]] = {}
        for node in reached:
            for goal in self.reached_by.get(node, ()):
                if goal in self.searches:
                    met.setdefault(goal, []).append(node)
        return met

    async def expand(self, conn: GraphConnection, root_side: _Search, from_left: bool,
                     kind_ids: Sequence[int] | None, direction: Direction, all_paths: bool,
                     budget: WorkBudget) -> dict[int, list[int]]:
        """Advance every goal's search by one level; the goals that met the root's search, with the nodes
        where they met it."""
        budget.check_time()
        active = [(goal, search) for goal, search in self.searches.items() if search.frontier]
        nodes = sorted({node for _, search in active for node in search.frontier})
        steps = []
        if direction in (Direction.OUT, Direction.BOTH):
            steps.append((nodes, from_left))
        if direction in (Direction.IN, Direction.BOTH):
            steps.append((nodes, not from_left))
        rows_of: dict[int, Rows] = {}
        for rows in await _level(conn, steps, kind_ids):
            for row in rows:
                rows_of.setdefault(row[0], []).append(row)
        self.level += 1
        met: dict[int, list[int]] = {}
        for goal, search in active:
            new = _advance(search, [row for node in search.frontier for row in rows_of.get(node, ())],
                           all_paths, budget)
            for node in new:
                self.reached_by.setdefault(node, []).append(goal)
            if found := [node for node in new if node in root_side.depth]:
                met[goal] = found
        return met


async def _bidirectional(conn: GraphConnection, left: int, right: int, kind_ids: Sequence[int] | None,
                         direction: Direction, max_depth: int | None, all_paths: bool,
                         budget: WorkBudget) -> list[Path]:
    forward, backward = _Search({left}), _Search({right})
    while forward.frontier and backward.frontier:
        levels = forward.level + backward.level
        if max_depth is not None and levels >= max_depth:
            return []
        if (max(len(forward.frontier), len(backward.frontier)) <= JOINT_EXPANSION
                and (max_depth is None or levels + 2 <= max_depth)):
            sides = [(forward, True), (backward, False)]
        elif len(forward.frontier) <= len(backward.frontier):
            sides = [(forward, True)]
        else:
            sides = [(backward, False)]
        reached = await _expand(conn, sides, direction, kind_ids, all_paths, budget)
        # The sides met only now: every node both have reached was reached in this round.
        met = [n for new in reached for n in new if n in forward.depth and n in backward.depth]
        if met:
            return _joined(forward, backward, left, right, met, all_paths, budget)
    return []


def _joined(forward: _Search, backward: _Search, left: int, right: int, met: list[int], all_paths: bool,
            budget: WorkBudget) -> list[Path]:
    """The shortest paths once the two sides have met at the nodes `met`. Every shortest path has exactly
    one node `at` hops from the left end, reached by both sides: joining the walks at those nodes finds
    each path once."""
    best = min(forward.depth[n] + backward.depth[n] for n in met)
    at = min(forward.level, best)
    paths: list[Path] = []
    for meeting in sorted({n for n in met if forward.depth[n] == at and backward.depth[n] == best - at}):
        for head in _walks(forward.parents, meeting, all_paths, budget):
            for tail in _walks(backward.parents, meeting, all_paths, budget):
                paths.append((left, right, head[::-1] + tail[1:]))
                if not all_paths:
                    return paths
    return paths


async def _distances(conn: GraphConnection, root: int, forward: bool, kind_ids: Sequence[int], max_depth: int
                     ) -> tuple[dict[int, int], list[tuple[int, int, int]]]:
    """Hop counts from (or, backwards, to) `root`, and every edge met on the way as (from, edge, to)."""
    distance, frontier, met = {root: 0}, [root], []
    for depth in range(1, max_depth + 1):
        if not frontier:
            break
        found = await _neighbours(conn, frontier, forward, kind_ids)
        met.extend(found)
        frontier = sorted({n for _, _, n in found if n not in distance})
        distance.update({n: depth for n in frontier})
    return distance, met


async def edges_between(conn: GraphConnection, start: int, end: int, *, kind_ids: Sequence[int], max_depth: int,
                        slack: int) -> set[int]:
    """Edges on some walk from `start` to `end` at most `slack` hops longer than the shortest one: the
    subgraph that connects the two ends, detours of a few hops included."""
    from_start, forward = await _distances(conn, start, True, kind_ids, max_depth)
    to_end, _ = await _distances(conn, end, False, kind_ids, max_depth)
    if end not in from_start:
        return set()
    budget = from_start[end] + slack
    return {edge for u, edge, v in forward
            if u in from_start and v in to_end and from_start[u] + 1 + to_end[v] <= budget}
