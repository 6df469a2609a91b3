"""Running a Cypher query: parse, validate, translate, search shortest paths if asked, execute.

A reading query is one parameterised SELECT. A shortestPath pattern adds its BFS before it (one
query per level, in the same transaction, under the same statement timeout) and hands the found
paths to the statement as parameters. A query with updating clauses runs step by step (updates.py).
"""

from __future__ import annotations

from collections.abc import Mapping

import psycopg

from houndgraph.graph.budget import WorkBudget
from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.parser import parse
from houndgraph.graph.cypher.statement import Result, compile_query, graph_ids, run_statement
from houndgraph.graph.cypher.updates import run_updating_query
from houndgraph.graph.cypher.validate import validate
from houndgraph.graph.kind_catalogue import kind_map
from houndgraph.graph.rows import EdgeRow, NodeRow

__all__ = ["Result", "compile_query", "entity_ids", "run_query"]


async def run_query(conn: psycopg.AsyncConnection, query: str | a.Query, *, allow_mutations: bool = False,
                    complexity_limit: bool = True, load_entities: bool = True,
                    budget: WorkBudget | None = None, as_graph: bool = False) -> Result:
    """Run one query, as text or as parsed already, on `conn` (inside the caller's transaction) and
    return its rows.

    Raises CypherError subclasses for queries we refuse, WorkExhausted when its path searches pass
    `budget` (or its deadline) and ResultTooLarge when it returns more rows than the budget allows;
    database errors propagate. `as_graph`: the caller reads only the nodes and edges the rows name (the
    graph answer), so rows the query cannot tell apart may come once (translate.set_answer)."""
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
        await _load_entities(conn, result, {v: k for k, v in kinds.items()})
    return result


def entity_ids(result: Result) -> tuple[set[int], set[int]]:
    """Every node and edge id the rows mention (path members included)."""
    return graph_ids(result.rows, result.types)


async def _load_entities(conn: psycopg.AsyncConnection, result: Result, kind_names: Mapping[int, str]) -> None:
    node_ids, edge_ids = entity_ids(result)
    if edge_ids:
        cursor = await conn.execute(
            "SELECT id, start_id, end_id, kind_id, properties FROM edge WHERE id = ANY(%s::bigint[])",
            (sorted(edge_ids),))
        for edge_id, start_id, end_id, kind_id, properties in await cursor.fetchall():
            result.edges[edge_id] = EdgeRow(edge_id, start_id, end_id, kind_names.get(kind_id, ""), properties)
            node_ids.update((start_id, end_id))
    if node_ids:
        cursor = await conn.execute("SELECT id, kind_ids, properties FROM node WHERE id = ANY(%s::bigint[])",
                                    (sorted(node_ids),))
        for node_id, kind_ids, properties in await cursor.fetchall():
            kinds = tuple(kind_names[k] for k in kind_ids if k in kind_names)
            result.nodes[node_id] = NodeRow(node_id, kinds, properties)
