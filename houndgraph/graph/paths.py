"""Shortest paths over the edge table: which search answers, and the paths' edges by id.

`shortest_path_batches` hands out the paths nearest first, so that a query with a LIMIT stops the search once it
has its rows. When the request's connection has the edges' copy in memory attached (houndgraph/graph/projection) and
it is the graph the request started on, one pair, or a few roots, are searched there (`_batches_in_memory`):
PostgreSQL then only reads the paths' rows; from a few roots to a side too large to list (every enabled user),
`filtered_path_batches` asks which nodes of each level belong to that side, as the search reaches them. Otherwise
the search runs in PostgreSQL, a batched query per level (`graph.level_search`: bidirectional for one pair, one
reverse search per target for many sources). `pair_paths` (the path routes) runs the pair's search inside
PostgreSQL in one statement (`pair_path_edges.sql` beside this module), advancing the side with fewer edges to read.
`all_paths` keeps every parent at the shortest depth (allShortestPaths). DESIGN.md gives the measurements behind
this.

Every search draws on a `WorkBudget` (nodes visited, path members found, the deadline), checked at each
level and while paths are enumerated, so an all-pairs search stops with `WorkExhausted` rather than growing
without bound.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable, Sequence

import numpy as np

from houndgraph.graph.budget import WorkBudget, WorkExhausted
from houndgraph.graph.connection import GraphConnection, int_array
from houndgraph.graph.level_search import GoalSearches, Rows, bidirectional, level_rows, single_root
from houndgraph.graph.path_types import Direction, EdgeKey, KeyPath, Path, Walk
from houndgraph.graph.projection import walks as in_memory
from houndgraph.graph.projection.search import NodeLimitPassed, PairSearch
from houndgraph.graph.projection.store import attached_search

# The shapes of the searches' answers, named here for the callers of this module.
__all__ = ["Direction", "EdgeKey", "KeyPath", "Path", "Walk", "edges_between", "in_root_order", "pair_paths",
           "shortest_path_batches", "shortest_path_members", "shortest_paths"]


# Paths whose edge ids are read first of a level's, before the rest (see shortest_path_batches).
EDGE_ID_CHUNK = 1000
# Nodes of a level asked first whether they end paths, before the rest (see filtered_path_batches).
LEVEL_CHUNK = 1000


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
        return await bidirectional(conn, left, right, kind_ids, direction, None, all_paths, budget)
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
    fewer = min(len(left_set), len(right_set))
    if search is not None and (fewer <= in_memory.MAX_ROOTS
                               or fewer * search.projection.edge_count <= in_memory.SMALL_WALKS):
        async for batch in _batches_in_memory(conn, search, left_set, right_set, kind_ids, direction, max_depth,
                                              all_paths, budget):
            yield batch
        return
    if len(left_set) == 1 and len(right_set) == 1:
        (left,), (right,) = left_set, right_set
        if left != right:
            (found,) = await _with_edge_ids(
                conn, [await bidirectional(conn, left, right, kind_ids, direction, max_depth, all_paths, budget)])
            yield found
        return
    from_left = len(left_set) <= len(right_set)
    roots, others = (left_set, right_set) if from_left else (right_set, left_set)
    goal_searches = GoalSearches()
    for root in sorted(roots):
        async for batches in single_root(conn, root, others - {root}, goal_searches, from_left, kind_ids,
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
    # The edge ids of the paths found are read for several levels and roots at once: one statement for the first path
    # (the caller may want no more), then for twice as many paths each time, not one per root and level (on the labs,
    # all users -> Tier Zero found its paths at 170 of them).
    pending: list[list[KeyPath]] = []
    found_paths, wanted = 0, 1
    for batches in in_memory.batches(search.projection, sorted(roots), goals, roots_on_left=roots_on_left,
                                     kind_ids=kinds, max_depth=max_depth, all_paths=all_paths, budget=budget):
        pending += [turned(found) for found in batches]
        found_paths += sum(len(found) for found in batches)
        if found_paths >= wanted:
            async for batch in _with_edge_ids_in_chunks(conn, pending):
                yield batch
            pending, found_paths, wanted = [], 0, 2 * wanted
    async for batch in _with_edge_ids_in_chunks(conn, pending):
        yield batch


# Which of some node ids belong to a side of a search (`filtered_path_batches`).
NodeFilter = Callable[[list[int]], Awaitable[Iterable[int]]]


def searches_few_roots_in_memory(conn: GraphConnection, direction: Direction) -> bool:
    """Whether a search from at most `in_memory.MAX_ROOTS` roots on `conn` runs over the edges' copy in memory."""
    return direction is not Direction.BOTH and attached_search(conn) is not None


async def filtered_path_batches(conn: GraphConnection, roots: Sequence[int], goals: NodeFilter, *,
                                roots_on_left: bool, kind_ids: Sequence[int] | None, direction: Direction,
                                max_depth: int | None, all_paths: bool, budget: WorkBudget
                                ) -> AsyncGenerator[list[Path], None]:
    """The batches of `shortest_path_batches` from `roots` (at most `in_memory.MAX_ROOTS`, the smaller side) to a
    side too large to list, known only by `goals`: each level the search reaches in memory is asked which of its
    nodes are goals (a root is never its own goal). The many sources of "every enabled user -> Domain Admins" are
    then read only as far as the search goes, which a LIMIT ends a few levels from the target.
    Only when `searches_few_roots_in_memory`."""
    search = attached_search(conn)
    assert search is not None and direction is not Direction.BOTH and len(roots) <= in_memory.MAX_ROOTS
    projection = search.projection
    # Edges followed backwards from the left are edges followed forwards from the right.
    flip = direction is Direction.IN
    outgoing = roots_on_left != flip
    allowed = projection.kind_mask(None if kind_ids is None else list(kind_ids))
    ordered = sorted(set(roots))
    for root_id, root in zip(ordered, projection.node_numbers(np.array(ordered, dtype=np.int64)).tolist(),
                             strict=True):
        if root < 0:
            continue
        levels = in_memory.Levels(projection, root, outgoing, allowed)
        while len(levels.frontier) and (max_depth is None or levels.level < max_depth):
            budget.check_time()
            fresh = levels.advance()
            budget.visit(len(fresh))
            # A level may hold most of the graph where the caller wants a LIMIT of paths: its nodes are asked
            # about a chunk at a time, in id order (numbers follow ids), each chunk twice the last.
            start, size = 0, LEVEL_CHUNK
            while start < len(fresh):
                part = projection.node_ids[fresh[start:start + size]]
                found = set(await goals(part.tolist())) - {root_id}
                met = fresh[start:start + size][np.isin(part, np.fromiter(found, dtype=np.int64, count=len(found)))]
                start, size = start + size, 2 * size
                if not len(met):
                    continue
                batches = in_memory.level_paths(levels, root_id, met, all_paths, budget)
                if flip:
                    batches = [[(right, left, walk[::-1]) for left, right, walk in batch] for batch in batches]
                for batch in await _with_edge_ids(conn, batches):
                    yield batch


async def _distances(conn: GraphConnection, root: int, forward: bool, kind_ids: Sequence[int], max_depth: int
                     ) -> tuple[dict[int, int], Rows]:
    """Hop counts from (or, backwards, to) `root`, and every edge met on the way as (from, edge, to)."""
    distance, frontier, met = {root: 0}, [root], []
    for depth in range(1, max_depth + 1):
        if not frontier:
            break
        (found,) = await level_rows(conn, [(frontier, forward)], kind_ids)
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
