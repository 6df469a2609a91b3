"""Running a Cypher query: parse, validate, translate, search shortest paths if asked, execute.

A reading query is one parameterised SELECT. A shortestPath pattern adds its BFS before it (one
query per level, in the same transaction, under the same statement timeout) and hands the found
paths to the statement as parameters. A query with updating clauses runs step by step (updates.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import psycopg

from houndgraph.graph.budget import WorkBudget
from houndgraph.graph.connection import int_array
from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.parser import parse
from houndgraph.graph.cypher.statement import Result, compile_query, graph_ids, listed_ids, run_statement
from houndgraph.graph.cypher.updates import run_updating_query
from houndgraph.graph.cypher.validate import validate
from houndgraph.graph.json_values import read_json
from houndgraph.graph.kind_catalogue import kind_map
from houndgraph.graph.rows import EdgeRow, EntityKeys, NodeRow, properties_columns

__all__ = ["EntityKeys", "Offload", "Result", "compile_query", "entity_ids", "load_entities", "run_query"]

# Runs a function of its arguments somewhere other than the event loop (the caller's background threads), awaited.
Offload = Callable[..., Awaitable[Any]]
# Nodes or edges past which their properties are decoded through the caller's `offload`: psycopg decodes jsonb on
# the event loop, about 15 % of a large answer's time, stalling every other request of the process meanwhile.
LARGE_LOAD = 500
Row = tuple[Any, ...]


async def run_query(conn: psycopg.AsyncConnection, query: str | a.Query, *, allow_mutations: bool = False,
                    complexity_limit: bool = True, load_entities: bool = True,
                    budget: WorkBudget | None = None, as_graph: bool = False) -> Result:
    """Run one query, as text or as parsed already, on `conn` (inside the caller's transaction) and
    return its rows.

    Raises CypherError subclasses for queries we refuse, WorkExhausted when its path searches pass
    `budget` (or its deadline) and ResultTooLarge when it returns more rows than the budget allows;
    database errors propagate. `as_graph`: the caller reads only the nodes and edges the rows name (the
    graph answer), so rows the query cannot tell apart may come once (translate.set_answer). With `load_entities`,
    the rows' nodes and edges are read whole, on the event loop; a caller that shows fewer properties, or decodes many
    elsewhere, reads them with `load_entities` afterwards."""
    budget = budget or WorkBudget()
    if isinstance(query, str):
        query = parse(query)
    mutation = validate(query, allow_mutations=allow_mutations, complexity_limit=complexity_limit)
    kinds = await kind_map(conn)
    if mutation:
        result = await run_updating_query(conn, query, kinds, budget)
    else:
        result = await run_statement(conn, query, kinds, budget=budget, as_graph=as_graph)
    budget.check_rows(len(result.rows))
    if load_entities:
        await _load_entities(conn, result, {v: k for k, v in kinds.items()}, None, None)
    return result


async def load_entities(conn: psycopg.AsyncConnection, result: Result, offload: Offload | None,
                        keys: EntityKeys | None) -> None:
    """The rows of the nodes and edges `result` names (after `run_query(..., load_entities=False)`), with all their
    properties, or only `keys` of them: a graph answer without properties shows a node's name, object id, tags and
    last seen time, and reading every property of thousands of them (a few kB each for a SharpHound user) was most of
    what loading them cost."""
    kinds = await kind_map(conn)
    await _load_entities(conn, result, {v: k for k, v in kinds.items()}, offload, keys)


def entity_ids(result: Result) -> tuple[set[int], set[int]]:
    """Every node and edge id the rows mention (path members included), in lists and maps too."""
    nodes, edges = graph_ids(result.rows, result.types)
    listed_nodes, listed_edges = listed_ids(result.rows, result.types)
    return nodes | listed_nodes, edges | listed_edges


async def _load_entities(conn: psycopg.AsyncConnection, result: Result, kind_names: Mapping[int, str],
                         offload: Offload | None, keys: EntityKeys | None) -> None:
    node_ids, edge_ids = entity_ids(result)
    node_properties, edge_properties = properties_columns(keys)
    if edge_ids:
        rows = await _fetch(conn, f"SELECT id, start_id, end_id, kind_id, {edge_properties}{{}} FROM edge "
                                  "WHERE id = ANY(%s::bigint[])", sorted(edge_ids), offload)
        for edge_id, start_id, end_id, kind_id, properties in rows:
            result.edges[edge_id] = EdgeRow(edge_id, start_id, end_id, kind_names.get(kind_id, ""), properties)
            node_ids.update((start_id, end_id))
    if node_ids:
        rows = await _fetch(conn, f"SELECT id, kind_ids, {node_properties}{{}} FROM node WHERE id = ANY(%s::bigint[])",
                            sorted(node_ids), offload)
        for node_id, kind_ids, properties in rows:
            kinds = tuple(kind_names[k] for k in kind_ids if k in kind_names)
            result.nodes[node_id] = NodeRow(node_id, kinds, properties)


async def _fetch(conn: psycopg.AsyncConnection, sql: str, ids: list[int], offload: Offload | None) -> list[Row]:
    """The rows of `sql` (its `{}` follows the properties column, its last), with their properties decoded through
    `offload` when there are many: as text from PostgreSQL, parsed in the caller's background thread."""
    if offload is None or len(ids) <= LARGE_LOAD:
        return await (await conn.execute(sql.format(""), (int_array(ids),))).fetchall()
    rows = await (await conn.execute(sql.format("::text"), (int_array(ids),))).fetchall()
    decoded: list[Row] = await offload(_decode_last_column, rows)
    return decoded


def _decode_last_column(rows: list[Row]) -> list[Row]:
    return [(*row[:-1], read_json(row[-1])) for row in rows]
