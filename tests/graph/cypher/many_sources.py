"""The drawn graphs of the many-sources shortest path tests (`test_shortest_many_sources.py`,
`test_shortest_path_budget.py`): most nodes are the many sources, a few the targets, random edges; the answers a
search per (source, target) pair gives; one event loop and connection per test module for their queries."""

from __future__ import annotations

import asyncio
import random
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from houndgraph.db import Database
from houndgraph.graph.budget import ResultTooLarge, WorkBudget, WorkExhausted
from houndgraph.graph.cypher.execute import run_query
from tests.conftest import move_node_ids_past_given_ones

SEEDS = range(6)
SIZE = 40


@dataclass
class Graph:
    """Nodes n0..n39: most are A (the many sources), a few B (the targets), each with a number v;
    random R edges."""

    labels: list[str]
    values: list[int]
    edges: set[tuple[int, int]]

    @staticmethod
    def draw(rng: random.Random) -> Graph:
        labels = ["B" if rng.random() < 0.1 else "A" for _ in range(SIZE)]
        labels[0] = "B"
        edges = {(rng.randrange(SIZE), rng.randrange(SIZE)) for _ in range(rng.randint(SIZE, 3 * SIZE))}
        return Graph(labels, [rng.randint(0, 3) for _ in range(SIZE)], {(s, e) for s, e in edges if s != e})

    @cached_property
    def successors(self) -> dict[int, list[int]]:
        """Each node's edge ends, in order (built once per graph: a search per pair read every edge at every node)."""
        successors: dict[int, list[int]] = {}
        for s, e in sorted(self.edges):
            successors.setdefault(s, []).append(e)
        return successors

    def shortest(self, start: int, end: int) -> set[tuple[str, ...]]:
        """Every shortest path from start to end, as node names."""
        depth, queue = {start: 0}, deque([start])
        parents: dict[int, list[int]] = {start: []}
        successors = self.successors
        while queue:
            node = queue.popleft()
            for e in successors.get(node, ()):
                if e not in depth:
                    depth[e], parents[e] = depth[node] + 1, [node]
                    queue.append(e)
                elif depth[e] == depth[node] + 1:
                    parents[e].append(node)
        if end not in depth or end == start:
            return set()

        def walks(node: int) -> list[tuple[str, ...]]:
            if node == start:
                return [(f"n{start}",)]
            return [(*walk, f"n{node}") for parent in parents[node] for walk in walks(parent)]

        return set(walks(end))


def load(database: Database, graph: Graph) -> None:
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("TRUNCATE edge, node RESTART IDENTITY CASCADE")
        conn.execute("INSERT INTO kind (name) VALUES ('A'), ('B'), ('R') ON CONFLICT (name) DO NOTHING")
        for node, (label, value) in enumerate(zip(graph.labels, graph.values, strict=True)):
            conn.execute("INSERT INTO node (id, kind_ids, properties) SELECT %s, ARRAY[id], %s FROM kind "
                         "WHERE name = %s", (node + 1, Jsonb({"name": f"n{node}", "v": value}), label))
        for start, end in sorted(graph.edges):
            conn.execute("INSERT INTO edge (start_id, end_id, kind_id) SELECT %s, %s, id FROM kind WHERE name = 'R'",
                         (start + 1, end + 1))
        move_node_ids_past_given_ones(conn)


def expected_paths(graph: Graph, sources: list[int], targets: list[int]) -> dict[tuple[str, str], set[tuple[str, ...]]]:
    """The shortest paths of each connected (source, target) pair, searched pair by pair."""
    found = {(f"n{s}", f"n{t}"): graph.shortest(s, t) for s in sources for t in targets}
    return {pair: paths for pair, paths in found.items() if paths}


def drawn(database: Database, seed: int) -> tuple[Graph, list[int], list[int]]:
    graph = Graph.draw(random.Random(seed))
    load(database, graph)
    sources = [n for n in range(SIZE) if graph.labels[n] == "A" and graph.values[n] >= 1]
    return graph, sources, [n for n in range(SIZE) if graph.labels[n] == "B"]


PATH_ROW = "RETURN u.name, t.name, [n IN nodes(p) | n.name]"


class _Reader:
    """One event loop and connection for the module's thousands of queries (a backend per query cost more than them)."""

    def __init__(self) -> None:
        self.runner = asyncio.Runner()
        self.connections: dict[str, psycopg.AsyncConnection[Any]] = {}

    def run(self, database: Database, query: str, budget: WorkBudget, plan_off: str | None) -> list[tuple[Any, ...]]:
        async def go() -> list[tuple[Any, ...]]:
            conn = self.connections.get(database.conninfo)
            if conn is None or conn.closed:
                conn = self.connections[database.conninfo] = await psycopg.AsyncConnection.connect(database.conninfo)
            async with conn.transaction(force_rollback=True):
                if plan_off is not None:
                    await conn.execute(f"SET LOCAL {plan_off} = off")
                return [tuple(row) for row in (await run_query(conn, query, load_entities=False, budget=budget)).rows]
        return self.runner.run(go())


_readers: list[_Reader] = []


@contextmanager
def module_reader() -> Iterator[None]:
    """The reader of `run_with_budget` for a test module (its module-scoped autouse fixture)."""
    _readers.append(reader := _Reader())
    yield
    _readers.remove(reader)
    for conn in reader.connections.values():
        reader.runner.run(conn.close())
    reader.runner.close()


def run_with_budget(database: Database, query: str, budget: WorkBudget, plan_off: str | None = None
                     ) -> list[tuple[Any, ...]]:
    return _readers[-1].run(database, query, budget, plan_off)


def outcome(database: Database, query: str, budget: WorkBudget) -> tuple[str, list[str]]:
    """The query's sorted rows, or the name of the error it was refused with."""
    try:
        return "rows", sorted(map(repr, run_with_budget(database, query, budget)))
    except (WorkExhausted, ResultTooLarge) as error:
        return type(error).__name__, []


def members_bound(graph: Graph, sources: list[int], targets: list[int]) -> int:
    """2d + 1 summed over the connected (source, target) pairs, d their distance: the members of one
    shortest path per pair."""
    return sum(2 * len(next(iter(found))) - 1 for found in expected_paths(graph, sources, targets).values())
