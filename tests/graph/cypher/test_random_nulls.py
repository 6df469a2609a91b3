"""Property tests of Cypher's null rules: random expressions over properties that are missing, stored as
null, empty lists and lists holding nulls, each answer compared with an evaluator written here from the
Cypher manual ("Working with null"): null in, null out; predicates are three-valued; list predicates and
comprehensions over a null list are null. Seeded, so a failure names its seed and repeats.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from psycopg.types.json import Jsonb

from houndgraph.db import Database
from tests.conftest import move_node_ids_past_given_ones
from tests.graph.cypher.answers import assert_answers, rows

MISSING = object()  # the property is absent from the node
STORED_NULL = object()  # the property is present, as JSON null
LISTS: list[Any] = [MISSING, STORED_NULL, [], [None], [1, None, 2], [2], [2, 2, None], [0, 1, 2, 3], [3, None]]
VALUES: list[Any] = [MISSING, STORED_NULL, 0, 1, 2, 3]
SEEDS = range(80)


def value(raw: Any) -> Any:
    return None if raw is MISSING or raw is STORED_NULL else raw


# -- the evaluator: Cypher semantics in plain Python, None for null ---------------------------------


def compare(op: str, x: Any, y: Any) -> bool | None:
    if x is None or y is None:
        return None
    return {"=": x == y, "<>": x != y, "<": x < y, ">=": x >= y}[op]


def and_(x: bool | None, y: bool | None) -> bool | None:
    if x is False or y is False:
        return False
    return None if x is None or y is None else True


def or_(x: bool | None, y: bool | None) -> bool | None:
    if x is True or y is True:
        return True
    return None if x is None or y is None else False


def not_(x: bool | None) -> bool | None:
    return None if x is None else not x


def xor(x: bool | None, y: bool | None) -> bool | None:
    return None if x is None or y is None else x != y


def quantify(kind: str, tests: list[bool | None]) -> bool | None:
    trues, falses, unknown = tests.count(True), tests.count(False), None in tests
    if kind == "any":
        return True if trues else (None if unknown else False)
    if kind == "all":
        return False if falses else (None if unknown else True)
    if kind == "none":
        return False if trues else (None if unknown else True)
    return False if trues > 1 else (None if unknown else trues == 1)


def list_equal(x: list[Any] | None, y: list[Any]) -> bool | None:
    if x is None:
        return None
    if len(x) != len(y):
        return False
    pairs = [compare("=", i, j) for i, j in zip(x, y, strict=True)]
    return False if False in pairs else (None if None in pairs else True)


def member(x: Any, items: list[Any] | None) -> bool | None:
    if items is None:
        return None
    if not items:
        return False
    if x is None:
        return None
    if x in [i for i in items if i is not None]:
        return True
    return None if None in items else False


def index(items: list[Any] | None, i: int) -> Any:
    if items is None or not -len(items) <= i < len(items):
        return None
    return items[i]


# -- random expressions: (Cypher text, evaluation over a node's (v, l)) ----------------------------

Node = tuple[Any, Any]
Expr = tuple[str, Callable[[Node], Any]]
OPS = ("=", "<>", "<", ">=")


def element_test(rng: random.Random) -> tuple[str, Callable[[Any], bool | None]]:
    op, c = rng.choice(OPS), rng.randint(0, 3)
    return f"x {op} {c}", lambda x: compare(op, x, c)


def predicate(rng: random.Random, depth: int = 0) -> Expr:
    choice = rng.randrange(9 if depth < 2 else 6)
    if choice == 0:
        kind = rng.choice(("any", "all", "none", "single"))
        text, test = element_test(rng)
        return (f"{kind}(x IN n.l WHERE {text})",
                lambda node: None if node[1] is None else quantify(kind, [test(x) for x in node[1]]))
    if choice == 1:
        c = rng.choice([0, 1, 2, 3, None])
        return f"{'null' if c is None else c} IN n.l", lambda node: member(c, node[1])
    if choice == 2:
        op, c = rng.choice(OPS), rng.randint(0, 3)
        return f"n.v {op} {c}", lambda node: compare(op, node[0], c)
    if choice == 3:
        subject, evaluate = scalar(rng)
        return f"{subject} IS NULL", lambda node: evaluate(node) is None
    if choice == 4:
        op, c = rng.choice(OPS), rng.randint(0, 4)
        subject, evaluate = scalar(rng)
        return f"{subject} {op} {c}", lambda node: compare(op, evaluate(node), c)
    if depth >= 2 or rng.random() < 0.5:
        other = rng.choice(LISTS[2:])
        negated = rng.random() < 0.5
        text = "[" + ", ".join("null" if x is None else str(x) for x in other) + "]"
        return (f"n.l {'<>' if negated else '='} {text}",
                lambda node: (not_ if negated else (lambda x: x))(list_equal(node[1], other)))
    left, right = predicate(rng, depth + 1), predicate(rng, depth + 1)
    if choice == 5:
        return f"({left[0]} AND {right[0]})", lambda node: and_(left[1](node), right[1](node))
    if choice == 6:
        return f"({left[0]} OR {right[0]})", lambda node: or_(left[1](node), right[1](node))
    if choice == 7:
        return f"({left[0]} XOR {right[0]})", lambda node: xor(left[1](node), right[1](node))
    return f"(NOT {left[0]})", lambda node: not_(left[1](node))


def scalar(rng: random.Random) -> Expr:
    """An integer-valued expression that is null whenever Cypher says so."""
    choice = rng.randrange(11)
    if choice == 0:
        return "size(n.l)", lambda node: None if node[1] is None else len(node[1])
    if choice == 1:
        return "head(n.l)", lambda node: index(node[1], 0)
    if choice == 2:
        return "last(n.l)", lambda node: index(node[1], -1)
    if choice == 3:
        i = rng.randint(-2, 3)
        return f"n.l[{i}]", lambda node: index(node[1], i)
    if choice == 4:
        c = rng.randint(0, 2)
        return f"n.v + {c}", lambda node: None if node[0] is None else node[0] + c
    if choice == 5:
        c = rng.randint(0, 3)
        return f"coalesce(n.v, {c})", lambda node: c if node[0] is None else node[0]
    if choice == 6:
        return "n.v * 2 - 1", lambda node: None if node[0] is None else node[0] * 2 - 1
    if choice == 7:
        return "abs(-n.v)", lambda node: None if node[0] is None else abs(-node[0])
    if choice == 8:
        return ("reduce(s = 0, x IN n.l | s + coalesce(x, 10))",
                lambda node: None if node[1] is None else sum(10 if x is None else x for x in node[1]))
    if choice == 9:
        return ("size([x IN n.l WHERE x IS NOT NULL])",
                lambda node: None if node[1] is None else len([x for x in node[1] if x is not None]))
    c = rng.randint(0, 3)
    return (f"CASE WHEN n.v > {c} THEN n.v END",
            lambda node: node[0] if node[0] is not None and node[0] > c else None)


def comprehension(rng: random.Random) -> Expr:
    text, test = element_test(rng)
    plus = rng.randint(0, 1)

    def evaluate(node: Node) -> Any:
        if node[1] is None:
            return None
        return [None if x is None else x + plus for x in node[1] if test(x) is True]

    return f"[x IN n.l WHERE {text} | x + {plus}]", evaluate


# -- running ----------------------------------------------------------------------------------------


@dataclass
class Graph:
    nodes: list[tuple[Any, Any]]  # raw (v, l) per node, MISSING / STORED_NULL kept apart

    @staticmethod
    def draw(rng: random.Random) -> Graph:
        return Graph([(rng.choice(VALUES), rng.choice(LISTS)) for _ in range(rng.randint(4, 9))])

    def seen(self) -> list[Node]:
        return [(value(v), value(items)) for v, items in self.nodes]


def _load(database: Database, graph: Graph) -> None:
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("TRUNCATE edge, node RESTART IDENTITY CASCADE")
        for i, (v, items) in enumerate(graph.nodes):
            props: dict[str, Any] = {"name": f"n{i}", "objectid": f"O-{i}"}
            for key, raw in (("v", v), ("l", items)):
                if raw is not MISSING:
                    props[key] = None if raw is STORED_NULL else raw
            conn.execute("INSERT INTO node (id, kind_ids, properties) VALUES (%s, '{}', %s)", (i + 1, Jsonb(props)))
        move_node_ids_past_given_ones(conn)



def _questions(graph: Graph, rng: random.Random) -> list[tuple[str, list[tuple[Any, ...]]]]:
    nodes = list(enumerate(graph.seen()))
    questions = []
    for _ in range(4):
        text, evaluate = predicate(rng)
        questions.append((f"MATCH (n) WHERE {text} RETURN n.name",
                          [(f"n{i}",) for i, node in nodes if evaluate(node) is True]))
        questions.append((f"MATCH (n) RETURN n.name, {text}", [(f"n{i}", evaluate(node)) for i, node in nodes]))
    for text, evaluate in (scalar(rng), comprehension(rng)):
        questions.append((f"MATCH (n) RETURN n.name, {text}", [(f"n{i}", evaluate(node)) for i, node in nodes]))
    return questions


@pytest.mark.parametrize("seed", SEEDS)
def test_null_rules_match_the_evaluator(empty_graph: Database, seed: int) -> None:
    rng = random.Random(seed)
    graph = Graph.draw(rng)
    _load(empty_graph, graph)
    assert_answers(empty_graph, _questions(graph, rng), f"seed {seed}\n{graph.seen()}")


@pytest.mark.parametrize(("expression", "expected"), [
    ("none(x IN n.nosuchprop WHERE x = 'a')", None),
    ("all(x IN n.nosuchprop WHERE x = 'a')", None),
    ("any(x IN n.nosuchprop WHERE x = 'a')", None),
    ("single(x IN n.nosuchprop WHERE x = 'a')", None),
    ("[x IN n.nosuchprop | x]", None),
    ("[x IN n.nosuchprop WHERE x = 1]", None),
    ("reduce(s = 0, x IN n.nosuchprop | s + x)", None),
    ("keys(n.nosuchprop)", None),
    ("size(n.nosuchprop)", None),
    ("any(x IN [0, null] WHERE x = 2)", None),
    ("all(x IN [2, null] WHERE x = 2)", None),
    ("none(x IN [2, null] WHERE x = 2)", False),
    ("single(x IN [2, null] WHERE x = 2)", None),
    ("single(x IN [2, 2, null] WHERE x = 2)", False),
    ("any(x IN [] WHERE x = 2)", False),
    ("all(x IN [] WHERE x = 2)", True),
    ("[1, null] = [1, null]", None),
    ("[1, null] = [2, null]", False),
    ("[1, null] <> [1]", True),
    ("{a: 1, b: null} = {a: 1, b: null}", None),
    ("{a: 1, b: null} = {a: 2, b: null}", False),
    ("{a: 1} = {a: 1, b: 2}", False),
    ("{a: 1, b: [2]} = {b: [2], a: 1}", True),
])
def test_the_manuals_cases(empty_graph: Database, expression: str, expected: Any) -> None:
    _load(empty_graph, Graph([(1, [1])]))
    [answer] = rows(empty_graph, [f"MATCH (n) RETURN {expression}"])
    assert answer == [(expected,)]


def test_none_over_a_missing_list_keeps_no_row(empty_graph: Database) -> None:
    """The issue's case: `WHERE NONE(x IN n.nosuchprop ...)` returned every node; Neo4j returns none."""
    _load(empty_graph, Graph([(1, MISSING), (2, STORED_NULL), (3, [])]))
    [answer] = rows(empty_graph, ["MATCH (n) WHERE NONE(x IN n.l WHERE x = 'a') RETURN n.name"])
    assert answer == [("n2",)]
