"""Shortest paths over the edge table: breadth-first search with one batched query per level.

One source and one target: bidirectional BFS; while both frontiers are small both sides advance in the same
query (one round trip per two levels), then the smaller one; the level where they meet reads only the edges
from one frontier to the other. `pair_paths` (the path routes) runs that search inside PostgreSQL in one
statement (`pair_path_edges.sql` beside this module), advancing the side with fewer edges to read. Many sources and
few targets (the everyday "all users -> Domain Admins"): one reverse BFS per target that reaches every source
at once, never a search per pair, until its frontier outgrows the sources not reached yet; from then on those
grow searches of their own toward it, all in one query per level, and whichever side has the smaller frontier
advances (sparse sources such as Kerberoastable users meet it a level or two from themselves); their searches
carry on toward the next target. The mirror image when targets outnumber sources. `all_paths` keeps every
parent at the shortest depth (allShortestPaths). `shortest_path_batches` hands out the paths nearest first, so
that a query with a LIMIT stops the search once it has its rows. DESIGN.md gives the measurements behind this.

When the request's connection has the edges' copy in memory attached (houndgraph/graph/projection) and it is the
graph the request started on, `shortest_path_batches` searches one pair, or a few roots, there instead, one
directed breadth-first search per root (`_batches_in_memory`): PostgreSQL then only reads the paths' rows.

Every search draws on a `WorkBudget` (nodes visited, path members found, the deadline), checked at each
level and while paths are enumerated, so an all-pairs search stops with `WorkExhausted` rather than growing
without bound.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import chain

from houndgraph.graph.budget import WorkBudget, WorkExhausted
from houndgraph.graph.connection import GraphConnection, int_array
from houndgraph.graph.projection import walks as in_memory
from houndgraph.graph.projection.search import NodeLimitPassed, PairSearch
from houndgraph.graph.projection.store import attached_search

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

# Paths whose edge ids are read first of a level's, before the rest (see shortest_path_batches).
EDGE_ID_CHUNK = 1000

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


async def _level(conn: GraphConnection, steps: Steps, kind_ids: Sequence[int] | None) -> list[Rows]:
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


async def _edge_ids(conn: GraphConnection, keys: Iterable[EdgeKey]) -> dict[EdgeKey, int]:
    """The id of each edge of `keys` that exists, in one query."""
    ordered = sorted(set(keys))
    if not ordered:
        return {}
    starts, kinds, ends = (list(column) for column in zip(*ordered, strict=True))
    cursor = await conn.execute(
        "SELECT e.start_id, e.kind_id, e.end_id, e.id FROM unnest(%(s)s::bigint[], %(k)s::smallint[], "
        "%(e)s::bigint[]) AS k(s, kind, e) JOIN edge e ON e.start_id = k.s AND e.kind_id = k.kind AND e.end_id = k.e",
        {"s": int_array(starts), "k": int_array(kinds), "e": int_array(ends)})
    return {(start, kind, end): edge for start, kind, end, edge in await cursor.fetchall()}


async def _with_edge_ids(conn: GraphConnection, batches: list[list[KeyPath]]) -> list[list[Path]]:
    """The batches with the ids of their edges, read in one query. A path whose edge is gone since the
    search read it (a concurrent write) is left out."""
    ids = await _edge_ids(conn, {step for _, _, walk in (p for batch in batches for p in batch)
                                 for step in walk[1::2] if isinstance(step, tuple)})
    resolved: list[list[Path]] = []
    for batch in batches:
        found: list[Path] = []
        for left, right, walk in batch:
            steps = [step if isinstance(step, int) else ids.get(step) for step in walk]
            if all(step is not None for step in steps):
                found.append((left, right, [step for step in steps if step is not None]))
        resolved.append(found)
    return resolved


async def _expand(conn: GraphConnection, sides: Sequence[tuple[_Search, bool]], direction: Direction,
                  kind_ids: Sequence[int] | None, all_paths: bool, budget: WorkBudget,
                  meeting: _Search | None = None) -> list[list[int]]:
    """Advance each (side, whether it grows from the left end) by one level, all in one query; returns
    each side's newly reached nodes. With `meeting` (the search the first side grows toward), when the first
    side's edges reach that search's frontier, only those edges are read and only the first side advances,
    onto the nodes where the two meet (see `_meeting_level`)."""
    budget.check_time()
    steps: list[tuple[list[int], bool]] = []
    for side, from_left in sides:
        if direction in (Direction.OUT, Direction.BOTH):
            steps.append((side.frontier, from_left))
        if direction in (Direction.IN, Direction.BOTH):
            steps.append((side.frontier, not from_left))
    per_side = 2 if direction is Direction.BOTH else 1
    if meeting is None:
        levels = await _level(conn, steps, kind_ids)
    else:
        met, levels = await _meeting_level(conn, steps, per_side, meeting.frontier, kind_ids,
                                           joint=len(sides) == 2)
        if met:
            first, _ = sides[0]
            return [_advance(first, chain.from_iterable(levels[:per_side]), all_paths, budget)]
    found = iter(levels)
    return [_advance(side, [row for _ in range(per_side) for row in next(found)], all_paths, budget)
            for side, _ in sides]


async def _meeting_level(conn: GraphConnection, steps: Steps, checked: int, frontier: list[int],
                         kind_ids: Sequence[int] | None, joint: bool = False) -> tuple[bool, list[Rows]]:
    """A level of a search that meets another: if edges of the first `checked` steps end on `frontier`,
    those edges alone, and True; otherwise every row of every step, as `_level` reads them. With `joint`
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


def _advance(side: _Search, rows: Iterable[tuple[int, EdgeKey, int]], all_paths: bool, budget: WorkBudget
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
        elif known == level and all_paths and (edge, node) not in parents[neighbour]:
            parents[neighbour].append((edge, node))
    side.frontier = reached
    budget.visit(len(reached))
    return reached


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


async def shortest_paths(conn: GraphConnection, lefts: Sequence[int], rights: Sequence[int], *,
                         kind_ids: Sequence[int] | None, direction: Direction = Direction.OUT,
                         min_depth: int = 1, max_depth: int | None = None,
                         all_paths: bool = False, budget: WorkBudget | None = None) -> list[Path]:
    """Shortest paths for every (left, right) pair that is connected; one path per pair unless
    `all_paths`. A pair of a node with itself has the empty path when `min_depth` is 0. Paths come
    ordered by their root (the end on the smaller side), then by their other end.

    Raises WorkExhausted when the search passes `budget` (by default: the library's node and path limits)."""
    found: list[Path] = []
    async for batch in shortest_path_batches(conn, lefts, rights, kind_ids=kind_ids, direction=direction,
                                             min_depth=min_depth, max_depth=max_depth, all_paths=all_paths,
                                             budget=budget):
        found.extend(batch)
    return in_root_order(found, lefts, rights)


def in_root_order(found: list[Path], lefts: Sequence[int], rights: Sequence[int]) -> list[Path]:
    """Paths of `shortest_path_batches` in the order `shortest_paths` returns them: by their root (the end on
    the smaller side), then by their other end; a node's empty path to itself (min_depth 0) first. Batches
    come nearest first, and the sort is stable, so each pair's paths keep the order the search found them in."""
    if len(set(lefts)) <= len(set(rights)):
        return sorted(found, key=lambda p: (p[0] != p[1], p[0], p[1]))
    return sorted(found, key=lambda p: (p[0] != p[1], p[1], p[0]))


async def pair_paths(conn: GraphConnection, left: int, right: int, *, kind_ids: Sequence[int] | None,
                     direction: Direction = Direction.OUT, all_paths: bool = False,
                     budget: WorkBudget | None = None) -> list[KeyPath]:
    """The shortest paths from `left` to a distinct `right` as `shortest_paths` finds them, but with each edge
    as its key (start id, kind id, end id), not yet its id: for a caller that reads the edges' rows by key
    itself, in one statement with the nodes (the path routes), rather than their ids first."""
    if left == right:
        raise ValueError("a path between two distinct nodes")
    budget = budget or WorkBudget()
    if direction is Direction.BOTH:
        return await _bidirectional(conn, left, right, kind_ids, direction, None, all_paths, budget)
    budget.check_time()
    # Edges followed backwards from the left are edges followed forwards from the right.
    ends = (left, right) if direction is Direction.OUT else (right, left)
    cursor = await conn.execute(PAIR_PATH_EDGES, {
        "left": ends[0], "right": ends[1], "kinds": None if kind_ids is None else int_array(kind_ids),
        "max": budget.max_nodes - budget.nodes})
    row = await cursor.fetchone()
    assert row is not None
    visited, starts, kinds, finishes = row
    budget.visit(visited)
    if starts is None:  # the function stopped past the budget, which visit() has just raised for
        raise WorkExhausted("the search visited too many nodes")
    walks = _dag_walks(ends[0], ends[1], zip(starts, kinds, finishes, strict=True), all_paths, budget)
    if direction is Direction.OUT:
        return [(left, right, walk) for walk in walks]
    return [(left, right, walk[::-1]) for walk in walks]


# The bidirectional search of one pair inside PostgreSQL (`pair_path_edges.sql`, beside this module): the edges of
# every shortest path as three arrays, and the nodes it visited.
PAIR_PATH_EDGES = ("SELECT visited, starts, kinds, ends "
                   "FROM pair_path_edges(%(left)s, %(right)s, %(kinds)s::smallint[], %(max)s)")


def shortest_path_members(left: int, right: int, edges: Iterable[EdgeKey]) -> int:
    """The nodes and edges in all the walks left -> right over `edges` (the edges of the shortest paths
    between the two, as `pair_path_edges` returns them), counted without enumerating the walks: what
    enumerating them would draw on a `WorkBudget`."""
    following: dict[int, list[int]] = {}
    for start, _, end in edges:
        following.setdefault(start, []).append(end)
    walks_to, level, hops = {left: 1}, [left], 0
    while level and right not in walks_to:
        reached: dict[int, int] = {}
        for node in level:
            for end in following.get(node, ()):
                reached[end] = reached.get(end, 0) + walks_to[node]
        walks_to.update(reached)
        level, hops = list(reached), hops + 1
    return walks_to.get(right, 0) * (2 * hops + 1) if right != left else 0


def _dag_walks(left: int, right: int, edges: Iterable[EdgeKey], all_paths: bool, budget: WorkBudget) -> list[Walk]:
    """The walks left -> right over `edges`, the edges of the shortest paths between the two (each leads one
    hop further from `left` on some such path): every walk, or the first one unless `all_paths`."""
    following: dict[int, list[EdgeKey]] = {}
    for key in sorted(edges):
        following.setdefault(key[0], []).append(key)
    walks: list[Walk] = []

    def extend(walk: Walk, node: int) -> bool:
        if node == right:
            budget.found(len(walk))
            walks.append(walk)
            return not all_paths
        return any(extend([*walk, key, key[2]], key[2]) for key in following.get(node, ()))

    if following:
        extend([left], left)
    return walks


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
    search = attached_search(conn) if direction is not Direction.BOTH else None
    if search is not None and min(len(left_set), len(right_set)) <= in_memory.MAX_ROOTS:
        async for batch in _batches_in_memory(conn, search, left_set, right_set, kind_ids, direction, max_depth,
                                              all_paths, budget):
            yield batch
        return
    if len(left_set) == 1 and len(right_set) == 1:
        (left,), (right,) = left_set, right_set
        if left != right:
            (found,) = await _with_edge_ids(
                conn, [await _bidirectional(conn, left, right, kind_ids, direction, max_depth, all_paths, budget)])
            yield found
        return
    from_left = len(left_set) <= len(right_set)
    roots, others = (left_set, right_set) if from_left else (right_set, left_set)
    goal_searches = _GoalSearches()
    for root in sorted(roots):
        async for batches in _single_root(conn, root, others - {root}, goal_searches, from_left, kind_ids,
                                          direction, max_depth, all_paths, budget):
            async for batch in _with_edge_ids_in_chunks(conn, batches):
                yield batch


async def _with_edge_ids_in_chunks(conn: GraphConnection, batches: list[list[KeyPath]]
                                   ) -> AsyncGenerator[list[Path], None]:
    """`batches` with the ids of their edges. A level may reach thousands of goals where the caller wants a LIMIT
    of them: the ids are read a chunk at a time, each twice the last, as the caller asks for more."""
    size, start = EDGE_ID_CHUNK, 0
    while start < len(batches):
        end, paths = start, 0
        while end < len(batches) and paths < size:
            paths += len(batches[end])
            end += 1
        for batch in await _with_edge_ids(conn, batches[start:end]):
            yield batch
        size, start = 2 * size, end


async def _batches_in_memory(conn: GraphConnection, search: PairSearch, left_set: set[int], right_set: set[int],
                             kind_ids: Sequence[int] | None, direction: Direction, max_depth: int | None,
                             all_paths: bool, budget: WorkBudget) -> AsyncGenerator[list[Path], None]:
    """The batches of `shortest_path_batches`, searched over the request's copy of the edges in memory
    (houndgraph/graph/projection): one pair by the bidirectional search, a few roots by a search each."""
    # Edges followed backwards from the left are edges followed forwards from the right.
    flip = direction is Direction.IN
    lefts, rights = (right_set, left_set) if flip else (left_set, right_set)
    kinds = None if kind_ids is None else list(kind_ids)

    def turned(batch: list[KeyPath]) -> list[KeyPath]:
        return [(right, left, walk[::-1]) for left, right, walk in batch] if flip else batch

    if len(lefts) == 1 and len(rights) == 1:
        (left,), (right,) = lefts, rights
        if left != right:
            budget.check_time()
            try:
                visited, keys = search.shortest_path_edges(left, right, kinds, budget.max_nodes - budget.nodes)
            except NodeLimitPassed as error:
                raise WorkExhausted(str(error)) from error
            budget.visit(visited)
            walks = _dag_walks(left, right, keys, all_paths, budget)
            if max_depth is not None and walks and len(walks[0]) // 2 > max_depth:
                walks = []
            (found,) = await _with_edge_ids(conn, [turned([(left, right, walk) for walk in walks])])
            yield found
        return
    # The smaller side's nodes are the roots, the left ones on a tie, as in PostgreSQL's search.
    roots_on_left = (len(left_set) <= len(right_set)) != flip
    roots, goals = (lefts, rights) if roots_on_left else (rights, lefts)
    for batches in in_memory.batches(search.projection, sorted(roots), goals, roots_on_left=roots_on_left,
                                     kind_ids=kinds, max_depth=max_depth, all_paths=all_paths, budget=budget):
        async for batch in _with_edge_ids_in_chunks(conn, [turned(found) for found in batches]):
            yield batch


async def _single_root(conn: GraphConnection, root: int, goals: set[int], goal_searches: _GoalSearches,
                       from_left: bool, kind_ids: Sequence[int] | None, direction: Direction,
                       max_depth: int | None, all_paths: bool, budget: WorkBudget
                       ) -> AsyncGenerator[list[list[KeyPath]], None]:
    """One search from `root`; after each level, the paths of each goal it reached (one batch per goal:
    a goal's parents are complete once its level is expanded). Once the root's frontier outgrows the goals
    not reached yet, those grow searches of their own toward it (`goal_searches`, kept for the next roots),
    and from then on the side with the smaller frontier advances: a few sparse goals (Kerberoastable users,
    owned principals) meet the root's search a level or two from themselves instead of the root's search
    covering the graph."""
    side = _Search({root})
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


def _meetings(side: _Search, goal_searches: _GoalSearches, root: int, met: dict[int, list[int]],
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


class _GoalSearches:
    """The searches of goals toward the roots of a many-to-one search, each from its goal; the ones that
    advance do so by one level in one query (the edges of the nodes on any of their frontiers, read once).
    A search grows only as far as some root needs: the next root's search meets it where it has got to."""

    def __init__(self) -> None:
        self.searches: dict[int, _Search] = {}
        # For each node some goal's search has reached: those goals (a root's search meets them there).
        self.reached_by: dict[int, list[int]] = {}

    def started(self, goals: set[int]) -> bool:
        return any(goal in self.searches for goal in goals)

    def start(self, goals: set[int]) -> None:
        for goal in sorted(goals):
            if goal not in self.searches:
                self.searches[goal] = _Search({goal})
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

    async def expand(self, conn: GraphConnection, goals: list[int], root_side: _Search, from_left: bool,
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


async def _bidirectional(conn: GraphConnection, left: int, right: int, kind_ids: Sequence[int] | None,
                         direction: Direction, max_depth: int | None, all_paths: bool,
                         budget: WorkBudget) -> list[KeyPath]:
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
        other = backward if sides[0][0] is forward else forward
        reached = await _expand(conn, sides, direction, kind_ids, all_paths, budget, meeting=other)
        # The sides met only now: every node both have reached was reached in this round.
        met = [n for new in reached for n in new if n in forward.depth and n in backward.depth]
        if met:
            return _joined(forward, backward, left, right, met, all_paths, budget)
    return []


def _joined(forward: _Search, backward: _Search, left: int, right: int, met: list[int], all_paths: bool,
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


async def _distances(conn: GraphConnection, root: int, forward: bool, kind_ids: Sequence[int], max_depth: int
                     ) -> tuple[dict[int, int], Rows]:
    """Hop counts from (or, backwards, to) `root`, and every edge met on the way as (from, edge, to)."""
    distance, frontier, met = {root: 0}, [root], []
    for depth in range(1, max_depth + 1):
        if not frontier:
            break
        (found,) = await _level(conn, [(frontier, forward)], kind_ids)
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
    ids = await _edge_ids(conn, (edge for u, edge, v in forward
                                 if u in from_start and v in to_end and from_start[u] + 1 + to_end[v] <= budget))
    return set(ids.values())
