"""One translated statement and its rows: compiled after the shortest path searches it needs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

import psycopg

from houndgraph.graph import paths as graph_paths
from houndgraph.graph.budget import WorkBudget
from houndgraph.graph.connection import RAISE_WORK_MEM, int_array
from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher import entity_values
from houndgraph.graph.cypher.errors import CypherError, UnsupportedCypher
from houndgraph.graph.cypher.path_bound import refuse_past_path_budget
from houndgraph.graph.cypher.statistics import KindStatistics, kind_statistics
from houndgraph.graph.cypher.translate import shortest
from houndgraph.graph.cypher.translate.shortest import ShortestRequest
from houndgraph.graph.cypher.translate.state import FoundPath
from houndgraph.graph.cypher.translate.translator import Statement, translate
from houndgraph.graph.cypher.translate.values import Inputs, T
from houndgraph.graph.kind_catalogue import graph_generation_seen
from houndgraph.graph.projection.walks import MAX_ROOTS
from houndgraph.graph.rows import EdgeRow, NodeRow

# A query with more shortestPath patterns than this is refused rather than searched.
MAX_SHORTEST_SEARCHES = 8

# The memory a sort or hash of a query's statement may take before it spills to disk (for the rest of the
# request's transaction; never lowered). Nodes travel through joins with their properties: the 58k users of
# a 100k-object graph hashed for "users in groups of another domain" take 59 MB, and at PostgreSQL's default
# of 4 MB the hash went to disk in 8 batches (1.7 s where 1.0 s in memory).
WORK_MEM = "64MB"


@dataclass
class Result:
    columns: list[str]
    types: list[T]
    rows: list[tuple[Any, ...]]
    statement: Statement | None = None
    nodes: dict[int, NodeRow] = field(default_factory=dict)
    edges: dict[int, EdgeRow] = field(default_factory=dict)


_GRAPH_TYPES = (T.NODE, T.REL, T.NODES, T.RELS, T.PATH, T.PATHS)


def graph_ids(rows: Iterable[Sequence[Any]], types: Sequence[T], *,
              refuse_others: str | None = None) -> tuple[set[int], set[int]]:
    """The node and edge ids that values of `types` name: nodes, relationships, lists of them, paths (all
    their members). Values of other types are skipped, or refused with `refuse_others` as the message."""
    nodes: set[int] = set()
    edges: set[int] = set()
    # Only the columns that can name an entity are read: 58k names of users cost nothing here.
    columns = [(i, kind) for i, kind in enumerate(types) if refuse_others is not None or kind in _GRAPH_TYPES]
    if not columns:
        return nodes, edges
    for row in rows:
        for value, kind in ((row[i], kind) for i, kind in columns):
            if value is None:
                continue
            if kind is T.NODE:
                nodes.add(int(value))
            elif kind is T.REL:
                edges.add(int(value))
            elif kind is T.NODES:
                nodes.update(int(v) for v in value if v is not None)
            elif kind is T.RELS:
                edges.update(int(v) for v in value if v is not None)
            elif kind in (T.PATH, T.PATHS):
                for path in (value if kind is T.PATHS else [value]):
                    nodes.update(int(v) for v in path[0::2])
                    edges.update(int(v) for v in path[1::2])
            elif refuse_others is not None and (found := entity_values.tagged(value)) is not None:
                # An entity taken from a list or map (`DELETE m.key`, `DELETE l[0]`).
                nodes.update(found[0])
                edges.update(found[1])
            elif refuse_others is not None:
                raise CypherError(refuse_others)
    return nodes, edges


def listed_ids(rows: Iterable[Sequence[Any]], types: Sequence[T]) -> tuple[set[int], set[int]]:
    """The node and edge ids of the entities that values of other types (lists, maps) hold (entity_values)."""
    nodes: set[int] = set()
    edges: set[int] = set()
    columns = [i for i, kind in enumerate(types) if kind is T.JSON]
    for row in rows:
        for i in columns:
            if isinstance(value := row[i], dict | list):
                entity_values.collect_tagged(value, nodes, edges)
    return nodes, edges


def compile_query(query: a.Query, kinds: Mapping[str, int],
                  shortest: Mapping[int, list[FoundPath]] | None = None, inputs: Inputs | None = None,
                  stats: KindStatistics | None = None, as_graph: bool = False) -> Statement:
    return translate(query, kinds, shortest, inputs, stats, as_graph)


# The paths found for each search, shared by a query and the end point queries of its searches
# (which repeat the searches of the clauses before theirs).
Searched = dict[ShortestRequest, list[FoundPath]]


async def statement_for(conn: psycopg.AsyncConnection, query: a.Query, kinds: Mapping[str, int],
                        searched: Searched, inputs: Inputs | None, budget: WorkBudget,
                        stats: KindStatistics | None = None, as_graph: bool = False) -> Statement:
    """The query's one statement, after the shortest path searches it needs (`as_graph`: translate)."""
    pending = shortest.requests(query, kinds, [name for name, _ in inputs.columns] if inputs else ())
    if len(pending) > MAX_SHORTEST_SEARCHES:
        raise UnsupportedCypher(f"more than {MAX_SHORTEST_SEARCHES} shortest path patterns in one query")
    found: dict[int, list[FoundPath]] = {}
    for key, request in enumerate(pending):
        if request not in searched:
            lefts, rights = await _ends(conn, request, kinds, searched, inputs, budget, stats)
            await refuse_past_path_budget(conn, lefts, rights, budget=budget, rows_at=None, **_search_options(request))
            searched[request] = await graph_paths.shortest_paths(conn, lefts, rights, budget=budget,
                                                                 **_search_options(request))
        found[key] = searched[request]
    return compile_query(query, kinds, found, inputs, stats, as_graph)


async def _ends(conn: psycopg.AsyncConnection, request: ShortestRequest, kinds: Mapping[str, int],
                searched: Searched, inputs: Inputs | None, budget: WorkBudget, stats: KindStatistics | None
                ) -> tuple[list[int], list[int]]:
    """The node ids a search goes from and to."""
    return (await _ids(conn, request.sources, kinds, searched, inputs, budget, stats),
            await _ids(conn, request.targets, kinds, searched, inputs, budget, stats))


def _search_options(request: ShortestRequest, *leaving_out: str) -> dict[str, Any]:
    """The search's arguments of `graph_paths.shortest_paths` and `shortest_path_batches`, beside the ends."""
    options = {"kind_ids": request.kind_ids, "direction": graph_paths.Direction(request.direction.value),
               "min_depth": request.min_depth, "max_depth": request.max_depth, "all_paths": request.all_paths}
    return {name: value for name, value in options.items() if name not in leaving_out}


@dataclass(frozen=True, slots=True)
class FewRoots:
    """A search from a side of at most `MAX_ROOTS` nodes toward one too large to list, known by a filter."""

    roots: list[int]
    goals: graph_paths.NodeFilter
    roots_on_left: bool


async def _probed_sides(conn: psycopg.AsyncConnection, request: ShortestRequest, kinds: Mapping[str, int],
                        budget: WorkBudget, stats: KindStatistics | None
                        ) -> FewRoots | tuple[list[int], list[int]] | None:
    """When the search runs in memory, each side's first rows: both sides when the probe read them whole (owned ->
    Tier Zero: the search over listed sides, `shortest_path_batches`, ends each root where it has met them all); a
    side of at most `MAX_ROOTS` nodes and a filter for the other when that one is too large to list (all enabled users
    -> Domain Admins), which is then never listed whole. None otherwise (the caller lists both).
    A node of both sides has its empty path only with a minimum depth of 0, which a filtered search cannot give."""
    direction = graph_paths.Direction(request.direction.value)
    if request.min_depth == 0 or not graph_paths.searches_few_roots_in_memory(conn, direction):
        return None
    sources = await statement_for(conn, request.sources, kinds, {}, None, budget, stats)
    targets = await statement_for(conn, request.targets, kinds, {}, None, budget, stats)
    lefts, all_lefts = await _first_ids(conn, sources)
    rights, all_rights = await _first_ids(conn, targets)
    if all_lefts and all_rights:
        return lefts, rights
    # The smaller side roots the search, as `shortest_path_batches` chooses.
    if all_lefts and len(lefts) <= MAX_ROOTS < len(rights):
        return FewRoots(lefts, _member_filter(conn, targets), True)
    if all_rights and len(rights) <= MAX_ROOTS < len(lefts):
        return FewRoots(rights, _member_filter(conn, sources), False)
    return None


# Rows of a side read to tell whether it is small, and to hand it to the search whole when they are all of it (the
# 557 Kerberoastable users of the 100k benchmark: one read of a millisecond or two, where asking about every level the
# search reached took a query per chunk, and the listed sides were read again). A side's statement may name a node
# more than once.
SIDE_PROBE_ROWS = 1024


async def _first_ids(conn: psycopg.AsyncConnection, statement: Statement) -> tuple[list[int], bool]:
    """The distinct node ids of a side's first rows, and whether those were all of its rows."""
    cursor = await conn.execute(f"SELECT node_id FROM ({statement.sql}) AS side(node_id) LIMIT {SIDE_PROBE_ROWS}",
                                statement.params)
    rows = await cursor.fetchall()
    return list(dict.fromkeys(int(row[0]) for row in rows if row[0] is not None)), len(rows) < SIDE_PROBE_ROWS


def _member_filter(conn: psycopg.AsyncConnection, statement: Statement) -> graph_paths.NodeFilter:
    """Which of some node ids a side's statement returns, asked of PostgreSQL with them (the ids reach the side's
    own scan, which reads them by the node table's key)."""
    async def members(node_ids: list[int]) -> list[int]:
        cursor = await conn.execute(
            f"SELECT DISTINCT node_id FROM ({statement.sql}) AS side(node_id) "
            "WHERE node_id = ANY(%(reached_node_ids)s::bigint[])",
            {**statement.params, "reached_node_ids": int_array(node_ids)})
        return [int(row[0]) for row in await cursor.fetchall()]
    return members


async def _ids(conn: psycopg.AsyncConnection, query: a.Query, kinds: Mapping[str, int], searched: Searched,
               inputs: Inputs | None, budget: WorkBudget, stats: KindStatistics | None) -> list[int]:
    statement = await statement_for(conn, query, kinds, searched, inputs, budget, stats)
    cursor = await conn.execute(statement.sql, statement.params)
    return [int(row[0]) for row in await cursor.fetchall() if row[0] is not None]


async def run_statement(conn: psycopg.AsyncConnection, query: a.Query, kinds: Mapping[str, int],
                        inputs: Inputs | None = None, budget: WorkBudget | None = None,
                        row_cap: bool = True, as_graph: bool = False) -> Result:
    """The query's rows. With `row_cap`, at most one past the budget's row limit (a result the caller
    refuses); without, every row: the rows an updating query goes on to write are not a response. With
    `as_graph` the caller reads only the nodes and edges the rows name, and the rows may come once each
    where the query could not tell repetitions apart (translate)."""
    budget = budget or WorkBudget()
    await conn.execute(RAISE_WORK_MEM, {"work_mem": WORK_MEM})
    stats = await kind_statistics(conn, graph_generation_seen())
    if inputs is None:
        limited = shortest.rows_wanted(query)
        # With no LIMIT: stop searching once the paths give more rows than a response carries (refused).
        wanted = limited or shortest.rows_past(query, budget.max_rows)
        if wanted is not None:
            pending = shortest.requests(query, kinds)
            if len(pending) == 1:
                return await _run_limited(conn, query, kinds, pending[0], wanted, budget, stats,
                                          in_search_order=limited is None)
    return await _execute(conn, await statement_for(conn, query, kinds, {}, inputs, budget, stats, as_graph),
                          budget.max_rows if row_cap else None)


async def _run_limited(conn: psycopg.AsyncConnection, query: a.Query, kinds: Mapping[str, int],
                       request: ShortestRequest, wanted: tuple[int, int], budget: WorkBudget,
                       stats: KindStatistics | None, in_search_order: bool = False) -> Result:
    """A query of one shortest path search whose rows only grow with the paths (shortest.rows_wanted):
    the search goes on, nearest pairs first, only until the statement over the paths found so far
    returns its LIMIT rows (e.g. all users -> Domain Admins LIMIT 1000 stops a few levels from the target).
    `in_search_order`: a complete search hands the statement its paths in the order of
    `graph_paths.shortest_paths`, so that a query without LIMIT answers as one that searched them all first."""
    skip, limit = wanted
    found: list[FoundPath] = []
    check_at = skip + limit
    probed = None if in_search_order else await _probed_sides(conn, request, kinds, budget, stats)
    if isinstance(probed, FewRoots):
        search = graph_paths.filtered_path_batches(conn, probed.roots, probed.goals, roots_on_left=probed.roots_on_left,
                                                   budget=budget, **_search_options(request, "min_depth"))
    else:
        lefts, rights = probed or await _ends(conn, request, kinds, {}, None, budget, stats)
        if in_search_order:
            await refuse_past_path_budget(conn, lefts, rights, budget=budget, rows_at=check_at,
                                          **_search_options(request))
        search = graph_paths.shortest_path_batches(conn, lefts, rights, budget=budget, **_search_options(request))
    async with aclosing(search) as batches:
        async for batch in batches:
            found.extend(batch)
            if len(found) >= check_at:
                result = await _execute(conn, compile_query(query, kinds, {0: found}, stats=stats), limit)
                if len(result.rows) >= limit:
                    return result
                # Filters dropped rows: search on, and try again once the paths have doubled.
                check_at = 2 * len(found)
    if in_search_order:
        found = graph_paths.in_root_order(found, lefts, rights)
    return await _execute(conn, compile_query(query, kinds, {0: found}, stats=stats))


async def _execute(conn: psycopg.AsyncConnection, statement: Statement, max_rows: int | None = None) -> Result:
    """The statement's rows; with `max_rows`, at most one more than that (the caller refuses such a result), so
    that a query of a million rows is refused after the database made the first 100,001, not all of them."""
    sql = statement.sql if max_rows is None else f"SELECT * FROM ({statement.sql}) AS result LIMIT {int(max_rows) + 1}"
    cursor = await conn.execute(sql, statement.params)
    rows = [tuple(row) for row in await cursor.fetchall()]
    return Result([name for name, _ in statement.columns], [kind for _, kind in statement.columns], rows,
                  statement)
