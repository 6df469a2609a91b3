"""Running a Cypher query: parse, validate, translate, search shortest paths if asked, execute.

The statement is one parameterised SELECT. A shortestPath pattern adds its BFS before it (one query
per level, in the same transaction, under the same statement timeout) and hands the found paths to
the statement as parameters.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import psycopg

from houndgraph.graph import paths as graph_paths
from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.parser import parse
from houndgraph.graph.cypher.translate.patterns import NeedShortestPaths
from houndgraph.graph.cypher.translate.shortest import FoundPath
from houndgraph.graph.cypher.translate.translator import Statement, Translator
from houndgraph.graph.cypher.translate.values import T
from houndgraph.graph.cypher.validate import validate

# A query with more shortestPath patterns than this is refused rather than searched.
MAX_SHORTEST_SEARCHES = 8


@dataclass(frozen=True)
class NodeRow:
    id: int
    kinds: tuple[str, ...]
    properties: dict[str, Any]


@dataclass(frozen=True)
class EdgeRow:
    id: int
    start_id: int
    end_id: int
    kind: str
    properties: dict[str, Any]


@dataclass
class Result:
    columns: list[str]
    types: list[T]
    rows: list[tuple[Any, ...]]
    statement: Statement | None = None
    nodes: dict[int, NodeRow] = field(default_factory=dict)
    edges: dict[int, EdgeRow] = field(default_factory=dict)


async def load_kinds(conn: psycopg.AsyncConnection) -> dict[str, int]:
    cursor = await conn.execute("SELECT name, id FROM kind")
    return {name: kind_id for name, kind_id in await cursor.fetchall()}


def compile_query(query: a.Query, kinds: Mapping[str, int],
                  shortest: Mapping[int, list[FoundPath]] | None = None) -> Statement:
    return Translator(kinds, shortest).translate(query)


async def _statement(conn: psycopg.AsyncConnection, query: a.Query, kinds: Mapping[str, int],
                     shortest: dict[int, list[FoundPath]]) -> Statement:
    for _ in range(MAX_SHORTEST_SEARCHES + 1):
        try:
            return compile_query(query, kinds, shortest)
        except NeedShortestPaths as need:
            request = need.request
            lefts = await _ids(conn, request.sources, kinds, shortest)
            rights = await _ids(conn, request.targets, kinds, shortest)
            shortest[request.key] = await graph_paths.shortest_paths(
                conn, lefts, rights, kind_ids=request.kind_ids,
                direction=graph_paths.Direction(request.direction.value), min_depth=request.min_depth,
                max_depth=request.max_depth, all_paths=request.all_paths)
    from houndgraph.graph.cypher.errors import UnsupportedCypher

    raise UnsupportedCypher(f"more than {MAX_SHORTEST_SEARCHES} shortest path patterns in one query")


async def _ids(conn: psycopg.AsyncConnection, query: a.Query, kinds: Mapping[str, int],
               shortest: dict[int, list[FoundPath]]) -> list[int]:
    statement = await _statement(conn, query, kinds, shortest)
    cursor = await conn.execute(statement.sql, statement.params)
    return [int(row[0]) for row in await cursor.fetchall() if row[0] is not None]


async def run_query(conn: psycopg.AsyncConnection, text: str, *, allow_mutations: bool = False,
                    complexity_limit: bool = True, load_entities: bool = True) -> Result:
    """Run one query on `conn` (inside the caller's transaction) and return its rows.

    Raises CypherError subclasses for queries we refuse; database errors propagate."""
    query = parse(text)
    validate(query, allow_mutations=allow_mutations, complexity_limit=complexity_limit)
    kinds = await load_kinds(conn)
    statement = await _statement(conn, query, kinds, {})
    cursor = await conn.execute(statement.sql, statement.params)
    rows = [tuple(row) for row in await cursor.fetchall()]
    result = Result([name for name, _ in statement.columns], [kind for _, kind in statement.columns], rows,
                    statement)
    if load_entities:
        await _load_entities(conn, result, {v: k for k, v in kinds.items()})
    return result


def entity_ids(result: Result) -> tuple[set[int], set[int]]:
    """Every node and edge id the rows mention (path members included)."""
    node_ids: set[int] = set()
    edge_ids: set[int] = set()
    for row in result.rows:
        for value, kind in zip(row, result.types, strict=True):
            if value is None:
                continue
            if kind is T.NODE:
                node_ids.add(int(value))
            elif kind is T.REL:
                edge_ids.add(int(value))
            elif kind is T.NODES:
                node_ids.update(int(v) for v in value if v is not None)
            elif kind is T.RELS:
                edge_ids.update(int(v) for v in value if v is not None)
            elif kind is T.PATH:
                node_ids.update(int(v) for v in value[0::2])
                edge_ids.update(int(v) for v in value[1::2])
            elif kind is T.PATHS:
                for path in value:
                    node_ids.update(int(v) for v in path[0::2])
                    edge_ids.update(int(v) for v in path[1::2])
    return node_ids, edge_ids


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
