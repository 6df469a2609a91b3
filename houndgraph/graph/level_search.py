"""Shortest paths searched in PostgreSQL, one batched query per level (see `graph.paths` for when).

One source and one target: bidirectional BFS (`bidirectional`); while both frontiers are small both sides advance in
the same query (one round trip per two levels), then the smaller one; the level where they meet reads only the edges
from one frontier to the other. Many sources and few targets: one reverse BFS per target (`single_root`) that reaches
every source at once, until its frontier outgrows the sources not reached yet; from then on those grow searches of
their own toward it (`GoalSearches`), all in one query per level, and whichever side has the smaller frontier
advances. `all_paths` keeps every parent at the shortest depth.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain

from houndgraph.graph.budget import WorkBudget
from houndgraph.graph.connection import GraphConnection, int_array
from houndgraph.graph.path_types import Direction, EdgeKey, KeyPath, Parents, Walk


@dataclass
class Search:
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


Rows = list[tuple[int, EdgeKey, int]]  # (node in a frontier, edge, neighbour)
Steps = Sequence[tuple[list[int], bool]]  # (frontier, whether it follows edges forward)


def _level_sql(steps: Steps, kind_ids: Sequence[int] | None) -> tuple[str, dict[str, str]]:
    """One SELECT of (step, node, kind id, neighbour) over the steps, read from the edge indexes alone."""
    kinds = " AND kind_id = ANY(%(kinds)s::smallint[])" if kind_ids is not None else ""
    params = {"kinds": int_array(kind_ids or [])}
    selects = []
    for index, (frontier, forward) in enumerate(steps):
        near, far = ("start_id", "end_id") if forward else ("end_id", "start_id")
        selects.append(f"SELECT {index} AS step, {near} AS node, kind_id, {far} AS far FROM edge "
                       f"WHERE {near} = ANY(%(f{index})s::bigint[]){kinds}")
        params[f"f{index}"] = int_array(frontier)
    return " UNION ALL ".join(selects), params


async def level_rows(conn: GraphConnection, steps: Steps, kind_ids: Sequence[int] | None) -> list[Rows]:
    """The rows of each (frontier, forward) step, all steps in one query."""
    sql, params = _level_sql(steps, kind_ids)
    cursor = await conn.execute(sql, params)
    return _rows_of_steps(steps, await cursor.fetchall())


def _rows_of_steps(steps: Steps, records: Iterable[tuple[int, int, int, int]]) -> list[Rows]:
    """(step, node, kind id, neighbour) records as each step's rows."""
    found: list[Rows] = [[] for _ in steps]
    forwards = [forward for _, forward in steps]
    for index, node, kind, neighbour in records:
        key = (node, kind, neighbour) if forwards[index] else (neighbour, kind, node)
        found[index].append((node, key, neighbour))
    return found


async def _rows_by_node(conn: GraphConnection, steps: Steps, kind_ids: Sequence[int] | None) -> dict[int, Rows]:
    """The rows of each node of the (frontier, forward) steps, all in one query, grouped by node in SQL."""
    sql, params = _level_sql(steps, kind_ids)
    cursor = await conn.execute(
        f"SELECT step, node, array_agg(kind_id), array_agg(far) FROM ({sql}) AS found GROUP BY step, node", params)
    rows_of: dict[int, Rows] = {}
    for index, node, kinds, fars in await cursor.fetchall():
        rows = rows_of.setdefault(node, [])
        if steps[index][1]:
            rows.extend((node, (node, kind, far), far) for kind, far in zip(kinds, fars, strict=True))
        else:
            rows.extend((node, (far, kind, node), far) for kind, far in zip(kinds, fars, strict=True))
    return rows_of


async def _expand(conn: GraphConnection, sides: Sequence[tuple[Search, bool]], direction: Direction,
                  kind_ids: Sequence[int] | None, all_paths: bool, budget: WorkBudget,
                  meeting: Search | None = None) -> list[list[int]]:
    """Advance each (side, whether it grows from the left end) by one level, all in one query; returns
    each side's newly reached nodes. With `meeting` (the search the first side grows toward), when the first
    side's edges reach that search's frontier, only those edges are read and only the first side advances,
    onto the nodes where the two meet (see `meeting_level`)."""
    budget.check_time()
    steps: list[tuple[list[int], bool]] = []
    for side, from_left in sides:
        if direction in (Direction.OUT, Direction.BOTH):
            steps.append((side.frontier, from_left))
        if direction in (Direction.IN, Direction.BOTH):
            steps.append((side.frontier, not from_left))
    per_side = 2 if direction is Direction.BOTH else 1
    if meeting is None:
        levels = await level_rows(conn, steps, kind_ids)
    else:
        met, levels = await meeting_level(conn, steps, per_side, meeting.frontier, kind_ids,
                                           joint=len(sides) == 2)
        if met:
            first, _ = sides[0]
            return [_advance(first, chain.from_iterable(levels[:per_side]), all_paths, budget)]
    found = iter(levels)
    return [_advance(side, [row for _ in range(per_side) for row in next(found)], all_paths, budget)
            for side, _ in sides]


async def meeting_level(conn: GraphConnection, steps: Steps, checked: int, frontier: list[int],
                         kind_ids: Sequence[int] | None, joint: bool = False) -> tuple[bool, list[Rows]]:
    """A level of a search that meets another: if edges of the first `checked` steps end on `frontier`,
    those edges alone, and True; otherwise every row of every step, as `level` reads them. With `joint`
    (the other search advances in the same level, in the steps after the first `checked`), when no edge
    reaches `frontier` but the two sides reach common nodes, only the edges onto those nodes (and False):
    every path of that length passes through one of them, and the sides' other edges are never used.

    When two searches that have not met yet are about to, every shortest path takes one edge from the one's
    frontier to the other's (a node nearer to either end would have been reached by both already), so the
    edges of the level that lead elsewhere are never used: PostgreSQL leaves them out of the answer. At the
    last level of a search they are most of it (a user's groups lead to a thousand computers and groups, a
    dozen of them members of Domain Admins)."""
    sql, params = _level_sql(steps, kind_ids)
    params["frontier"] = int_array(frontier)
    middle = only_middle = ""
    if joint:
        # Nodes both sides reach in this level (a node one side knew before would have met the other's
        # frontier already, and shows in `met`).
        middle = (f", middle AS (SELECT far FROM found WHERE step < {int(checked)} "
                  f"INTERSECT SELECT far FROM found WHERE step >= {int(checked)})")
        only_middle = " AND (far IN (SELECT far FROM middle) OR NOT EXISTS (SELECT FROM middle))"
    cursor = await conn.execute(
        f"WITH found AS MATERIALIZED ({sql}), "
        f"met AS (SELECT * FROM found WHERE step < {int(checked)} "
        f"AND far IN (SELECT unnest(%(frontier)s::bigint[]))){middle} "
        "SELECT step, node, kind_id, far, true FROM met "
        f"UNION ALL SELECT step, node, kind_id, far, false FROM found WHERE NOT EXISTS (SELECT FROM met){only_middle}",
        params)
    records = await cursor.fetchall()
    return bool(records and records[0][4]), _rows_of_steps(steps, (record[:4] for record in records))


def _advance(side: Search, rows: Iterable[tuple[int, EdgeKey, int]], all_paths: bool, budget: WorkBudget
             ) -> list[int]:
    side.level = level = side.level + 1
    depth, parents = side.depth, side.parents  # locals: this loop runs for every edge a search reads
    reached: list[int] = []
    for node, edge, neighbour in rows:
        known = depth.get(neighbour)
        if known is None:
            depth[neighbour] = level
            parents[neighbour] = [(edge, node)]
            reached.append(neighbour)
        elif known == level:
            if all_paths:
                if (edge, node) not in parents[neighbour]:
                    parents[neighbour].append((edge, node))
            elif _nearer_first(node, edge, parents[neighbour][0]):
                parents[neighbour][0] = (edge, node)
    side.frontier = reached
    budget.visit(len(reached))
    return reached


def _nearer_first(node: int, edge: EdgeKey, kept: tuple[EdgeKey, int]) -> bool:
    """Whether (edge, node) is the parent a shortest path keeps over `kept`: the lowest-numbered node of the level
    before, then the lowest kind, as the in-memory search keeps (`projection.walks`). PostgreSQL returns a level's
    edges in whatever order its plan gives, so the first one read would make the answer hang on the plan."""
    kept_edge, kept_node = kept
    return (node, edge[1], edge) < (kept_node, kept_edge[1], kept_edge)


def _walks(parents: Parents, node: int, all_paths: bool, budget: WorkBudget) -> Iterator[Walk]:
    for walk in _unbounded_walks(parents, node, all_paths):
        budget.found(len(walk))
        yield walk


def _unbounded_walks(parents: Parents, node: int, all_paths: bool) -> Iterator[Walk]:
    """Sequences [node, edge, node, ..., root] following parent links from `node`."""
    links = parents[node]
    if not links:
        yield [node]
        return
    for edge, parent in links if all_paths else links[:1]:
        for rest in _unbounded_walks(parents, parent, all_paths):
            yield [node, edge, *rest]


async def single_root(conn: GraphConnection, root: int, goals: set[int], goal_searches: GoalSearches,
                       from_left: bool, kind_ids: Sequence[int] | None, direction: Direction,
                       max_depth: int | None, all_paths: bool, budget: WorkBudget
                       ) -> AsyncGenerator[list[list[KeyPath]], None]:
    """One search from `root`; after each level, the paths of each goal it reached (one batch per goal:
    a goal's parents are complete once its level is expanded). Once the root's frontier outgrows the goals
    not reached yet, those grow searches of their own toward it (`goal_searches`, kept for the next roots),
    and from then on the side with the smaller frontier advances: a few sparse goals (Kerberoastable users,
    owned principals) meet the root's search a level or two from themselves instead of the root's search
    covering the graph."""
    side = Search({root})
    remaining = set(goals)
    searching = goal_searches.started(remaining)
    if searching:
        # Goals that searched toward an earlier root: where they have reached this one, they met it.
        goal_searches.start(remaining)
        met = goal_searches.met_by([root], remaining)
        if batches := _meetings(side, goal_searches, root, met, remaining, from_left, max_depth, all_paths, budget):
            yield batches
        remaining.difference_update(goal_searches.ended(remaining))
    while side.frontier and remaining and (max_depth is None or side.level < max_depth):
        if not searching and len(remaining) * PAIR_SEARCH_COST < len(side.frontier):
            searching = True
            goal_searches.start(remaining)
        growing = goal_searches.growing(remaining, side.level, max_depth) if searching else []
        if growing and goal_searches.cost(growing) * PAIR_SEARCH_COST < len(side.frontier):
            met = await goal_searches.expand(conn, growing, side, not from_left, kind_ids, direction, all_paths,
                                             budget)
            batches = _meetings(side, goal_searches, root, met, remaining, from_left, max_depth, all_paths, budget)
            # A goal whose search ended without meeting the root's cannot reach it: the root's search only
            # enters what the goal's search has covered through nodes that search has covered already.
            remaining.difference_update(goal_searches.ended(remaining))
        else:
            (reached,) = await _expand(conn, [(side, from_left)], direction, kind_ids, all_paths, budget)
            if searching:
                met = goal_searches.met_by(reached, remaining)
                batches = _meetings(side, goal_searches, root, met, remaining, from_left, max_depth, all_paths,
                                    budget)
            else:
                batches = []
                for goal in sorted(remaining.intersection(reached)):
                    remaining.discard(goal)
                    # The walk runs goal -> root; paths read left to right.
                    batches.append([(root, goal, walk[::-1]) if from_left else (goal, root, walk)
                                    for walk in _walks(side.parents, goal, all_paths, budget)])
        if batches:
            yield batches


def _meetings(side: Search, goal_searches: GoalSearches, root: int, met: dict[int, list[int]],
              remaining: set[int], from_left: bool, max_depth: int | None, all_paths: bool,
              budget: WorkBudget) -> list[list[KeyPath]]:
    """The paths of the goals whose searches have just met the root's (`met`: at which nodes), each goal's
    as one batch; those goals are done. Neither search had reached what the other had before this round,
    so every shortest path crosses the root's newest level: each is found once, joined there."""
    batches = []
    for goal in sorted(met):
        remaining.discard(goal)
        search = goal_searches.searches[goal]
        best = min(side.depth[n] + search.depth[n] for n in met[goal])
        if max_depth is not None and best > max_depth:
            continue
        if from_left:
            found = _joined(side, search, root, goal, met[goal], all_paths, budget, at=side.level)
        else:
            found = _joined(search, side, goal, root, met[goal], all_paths, budget, at=best - side.level)
        if found:
            batches.append(found)
    return batches


class GoalSearches:
    """The searches of goals toward the roots of a many-to-one search, each from its goal; the ones that
    advance do so by one level in one query (the edges of the nodes on any of their frontiers, read once).
    A search grows only as far as some root needs: the next root's search meets it where it has got to."""

    def __init__(self) -> None:
        self.searches: dict[int, Search] = {}
        # For each node some goal's search has reached: those goals (a root's search meets them there).
        self.reached_by: dict[int, list[int]] = {}

    def started(self, goals: set[int]) -> bool:
        return any(goal in self.searches for goal in goals)

    def start(self, goals: set[int]) -> None:
        for goal in sorted(goals):
            if goal not in self.searches:
                self.searches[goal] = Search({goal})
                self.reached_by.setdefault(goal, []).append(goal)

    def growing(self, goals: set[int], root_level: int, max_depth: int | None) -> list[int]:
        """The goals whose searches can still advance: not ended, and shorter than `max_depth` together
        with the root's."""
        return [goal for goal in sorted(goals) if self.searches[goal].frontier
                and (max_depth is None or self.searches[goal].level + root_level < max_depth)]

    def cost(self, goals: list[int]) -> int:
        return sum(len(self.searches[goal].frontier) for goal in goals)

    def ended(self, goals: set[int]) -> list[int]:
        return [goal for goal in goals if not self.searches[goal].frontier]

    def met_by(self, reached: list[int], goals: set[int]) -> dict[int, list[int]]:
        """The `goals` whose searches have reached a node of `reached`, with those nodes."""
        met: dict[int, list[int]] = {}
        for node in reached:
            for goal in self.reached_by.get(node, ()):
                if goal in goals:
                    met.setdefault(goal, []).append(node)
        return met

    async def expand(self, conn: GraphConnection, goals: list[int], root_side: Search, from_left: bool,
                     kind_ids: Sequence[int] | None, direction: Direction, all_paths: bool,
                     budget: WorkBudget) -> dict[int, list[int]]:
        """Advance the searches of `goals` by one level; the goals that met the root's search, with the
        nodes where they met it."""
        budget.check_time()
        nodes = sorted({node for goal in goals for node in self.searches[goal].frontier})
        steps = []
        if direction in (Direction.OUT, Direction.BOTH):
            steps.append((nodes, from_left))
        if direction in (Direction.IN, Direction.BOTH):
            steps.append((nodes, not from_left))
        rows_of = await _rows_by_node(conn, steps, kind_ids)
        met: dict[int, list[int]] = {}
        for goal in goals:
            search = self.searches[goal]
            new = _advance(search, chain.from_iterable(rows_of.get(node, ()) for node in search.frontier),
                           all_paths, budget)
            for node in new:
                self.reached_by.setdefault(node, []).append(goal)
            if found := [node for node in new if node in root_side.depth]:
                met[goal] = found
        return met


async def bidirectional(conn: GraphConnection, left: int, right: int, kind_ids: Sequence[int] | None,
                         direction: Direction, max_depth: int | None, all_paths: bool,
                         budget: WorkBudget) -> list[KeyPath]:
    forward, backward = Search({left}), Search({right})
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
        other = backward if sides[0][0] is forward else forward
        reached = await _expand(conn, sides, direction, kind_ids, all_paths, budget, meeting=other)
        # The sides met only now: every node both have reached was reached in this round.
        met = [n for new in reached for n in new if n in forward.depth and n in backward.depth]
        if met:
            return _joined(forward, backward, left, right, met, all_paths, budget)
    return []


def _joined(forward: Search, backward: Search, left: int, right: int, met: list[int], all_paths: bool,
            budget: WorkBudget, at: int | None = None) -> list[KeyPath]:
    """The shortest paths once the two sides have met at the nodes `met`. Every shortest path has exactly
    one node `at` hops from the left end, reached by both sides: joining the walks at those nodes finds
    each path once. Unless told, `at` is where a search that advanced level by level on both sides met."""
    best = min(forward.depth[n] + backward.depth[n] for n in met)
    if at is None:
        at = min(forward.level, best)
    paths: list[KeyPath] = []
    for meeting in sorted({n for n in met if forward.depth[n] == at and backward.depth[n] == best - at}):
        for head in _walks(forward.parents, meeting, all_paths, budget):
            for tail in _walks(backward.parents, meeting, all_paths, budget):
                paths.append((left, right, head[::-1] + tail[1:]))
                if not all_paths:
                    return paths
    return paths
