"""Property tests: random small graphs and queries drawn from a grammar subset, each answer compared
with a straightforward evaluator written here in Python (Cypher's null rules, trail semantics for
variable length, breadth-first shortest paths). Seeded, so a failure names its seed and repeats.
"""

from __future__ import annotations

import random
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from psycopg.types.json import Jsonb

from houndgraph.db import Database
from tests.conftest import move_node_ids_past_given_ones
from tests.graph.cypher.answers import assert_answers

LABELS, TYPES = ("A", "B"), ("R", "S")
OPS: dict[str, Callable[[Any, Any], bool]] = {
    "=": lambda x, y: x == y, "<>": lambda x, y: x != y, "<": lambda x, y: x < y, ">=": lambda x, y: x >= y}
SEEDS = range(30)


@dataclass
class Graph:
    labels: list[set[str]]
    values: list[int | None]
    edges: list[tuple[int, str, int]]

    @staticmethod
    def draw(rng: random.Random) -> Graph:
        size = rng.randint(3, 7)
        labels = [{label for label in LABELS if rng.random() < 0.5} for _ in range(size)]
        values = [rng.choice([None, 0, 1, 2, 3]) for _ in range(size)]
        edges = sorted({(rng.randrange(size), rng.choice(TYPES), rng.randrange(size))
                        for _ in range(rng.randint(0, 3 * size))})
        return Graph(labels, values, edges)

    def name(self, node: int) -> str:
        return f"n{node}"

    def trails(self, start: int, kind: str, low: int, high: int) -> list[int]:
        """End nodes of every trail (no edge twice) of low..high hops along `kind`."""
        found: list[int] = []

        def walk(node: int, used: frozenset[int], depth: int) -> None:
            if depth >= low:
                found.append(node)
            if depth == high:
                return
            for index, (s, k, e) in enumerate(self.edges):
                if s == node and k == kind and index not in used:
                    walk(e, used | {index}, depth + 1)

        walk(start, frozenset(), 0)
        return found

    def distance(self, start: int, end: int, kind: str) -> int | None:
        seen, queue = {start: 0}, deque([start])
        while queue:
            node = queue.popleft()
            for s, k, e in self.edges:
                if s == node and k == kind and e not in seen:
                    seen[e] = seen[node] + 1
                    if e == end:
                        return seen[e]
                    queue.append(e)
        return None


def _load(database: Database, graph: Graph) -> None:
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("TRUNCATE edge, node RESTART IDENTITY CASCADE")
        conn.execute("INSERT INTO kind (name) SELECT unnest(%s::text[]) ON CONFLICT (name) DO NOTHING",
                     ([*LABELS, *TYPES],))
        for node, (labels, value) in enumerate(zip(graph.labels, graph.values, strict=True)):
            props = {"name": graph.name(node), "objectid": f"O-{node}"} | ({} if value is None else {"v": value})
            conn.execute("INSERT INTO node (id, kind_ids, properties) SELECT %s, coalesce(array_agg(id ORDER BY name), "
                         "'{}')::smallint[], %s FROM kind WHERE name = ANY(%s::text[])",
                         (node + 1, Jsonb(props), sorted(labels)))
        for start, kind, end in graph.edges:
            conn.execute("INSERT INTO edge (start_id, end_id, kind_id) SELECT %s, %s, id FROM kind WHERE name = %s",
                         (start + 1, end + 1, kind))
        move_node_ids_past_given_ones(conn)


def _questions(graph: Graph, rng: random.Random) -> list[tuple[str, list[tuple[Any, ...]]]]:
    """(query, expected rows) pairs for this graph."""
    nodes = range(len(graph.labels))
    label, kind, op, value = rng.choice(LABELS), rng.choice(TYPES), rng.choice(list(OPS)), rng.randint(0, 3)
    start, end = rng.choice(nodes), rng.choice(nodes)
    low = rng.randint(0, 2)
    high = low + rng.randint(0, 2)
    test = OPS[op]

    def ok(x: int | None, y: int | None) -> bool:
        return x is not None and y is not None and test(x, y)

    v, n = graph.values, graph.name
    return [
        (f"MATCH (n:{label}) WHERE n.v {op} {value} RETURN n.name",
         [(n(i),) for i in nodes if label in graph.labels[i] and ok(v[i], value)]),
        (f"MATCH (a)-[:{kind}]->(b) WHERE a.v {op} b.v RETURN a.name, b.name",
         [(n(s), n(e)) for s, k, e in graph.edges if k == kind and ok(v[s], v[e])]),
        (f"MATCH (a {{name: '{n(start)}'}})-[:{kind}*{low}..{high}]->(b) RETURN b.name",
         [(n(e),) for e in graph.trails(start, kind, low, high)]),
        (f"MATCH (a)-[:{kind}]-(b) RETURN count(*)",
         [(sum(2 if s != e else 1 for s, k, e in graph.edges if k == kind),)]),
        (f"MATCH (x) OPTIONAL MATCH (x)-[:{kind}]->(m:{label}) RETURN x.name, count(m)",
         [(n(i), sum(1 for s, k, e in graph.edges if s == i and k == kind and label in graph.labels[e]))
          for i in nodes]),
        (f"MATCH (x) WHERE NOT (x)-[:{kind}]->() AND (x:{label} OR x.v IS NULL) RETURN x.name",
         [(n(i),) for i in nodes if not any(s == i and k == kind for s, k, _ in graph.edges)
          and (label in graph.labels[i] or v[i] is None)]),
        ("MATCH (x) WITH x.v AS v, count(*) AS c RETURN v, c", list(Counter(v[i] for i in nodes).items())),
        (f"MATCH p = shortestPath((a {{name: '{n(start)}'}})-[:{kind}*1..]->(b {{name: '{n(end)}'}})) "
         "RETURN length(p)",
         [] if start == end or (d := graph.distance(start, end, kind)) is None else [(d,)]),
    ]


@pytest.mark.parametrize("seed", SEEDS)
def test_random_graph_answers_match_the_evaluator(empty_graph: Database, seed: int) -> None:
    rng = random.Random(seed)
    graph = Graph.draw(rng)
    _load(empty_graph, graph)
    assert_answers(empty_graph, _questions(graph, rng), f"seed {seed}\n{graph}")
