"""Our own small, typed Cypher syntax tree: what the parser builds and the translator reads.

Frozen dataclasses so a parsed query can be cached and shared between requests.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from enum import StrEnum
from typing import Any


def field_names(node: object) -> tuple[str, ...]:
    """The names of a syntax tree node's fields, in order; none for anything else (a value, a tuple, a class). Read
    once per class: the tree walks that run on every query (validation, the parse cache's fill) asked `dataclasses`
    again at every node."""
    if isinstance(node, type):
        return ()
    names = _FIELD_NAMES.get(kind := type(node))
    if names is None:
        names = _FIELD_NAMES[kind] = tuple(f.name for f in fields(kind)) if is_dataclass(kind) else ()
    return names


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


class Expr:
    """Base of every expression node."""


@dataclass(frozen=True)
class Literal(Expr):
    value: Any  # None, bool, int, float or str


@dataclass(frozen=True)
class ListLiteral(Expr):
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class MapLiteral(Expr):
    items: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True)
class Variable(Expr):
    name: str


@dataclass(frozen=True)
class Property(Expr):
    subject: Expr
    key: str


@dataclass(frozen=True)
class Index(Expr):
    subject: Expr
    index: Expr


@dataclass(frozen=True)
class Slice(Expr):
    subject: Expr
    start: Expr | None
    end: Expr | None


@dataclass(frozen=True)
class HasLabels(Expr):
    """`n:A:B` (all of) where each entry may itself be a disjunction `A|B` (any of)."""

    subject: Expr
    labels: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Unary(Expr):
    op: str  # "NOT", "-", "+"
    operand: Expr


@dataclass(frozen=True)
class Binary(Expr):
    # OR XOR AND = <> < > <= >= + - * / % ^ STARTS ENDS CONTAINS =~ IN
    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class IsNull(Expr):
    operand: Expr
    negated: bool


@dataclass(frozen=True)
class FunctionCall(Expr):
    name: str  # lower-cased, with namespace ("apoc.coll.sum")
    args: tuple[Expr, ...]
    distinct: bool = False


@dataclass(frozen=True)
class CountStar(Expr):
    pass


@dataclass(frozen=True)
class Case(Expr):
    subject: Expr | None
    whens: tuple[tuple[Expr, Expr], ...]
    default: Expr | None


@dataclass(frozen=True)
class ListComprehension(Expr):
    variable: str
    source: Expr
    where: Expr | None
    projection: Expr | None


@dataclass(frozen=True)
class Quantifier(Expr):
    kind: str  # all, any, none, single
    variable: str
    source: Expr
    where: Expr | None


@dataclass(frozen=True)
class Reduce(Expr):
    accumulator: str
    initial: Expr
    variable: str
    source: Expr
    expression: Expr


@dataclass(frozen=True)
class PatternPredicate(Expr):
    pattern: PatternPart


@dataclass(frozen=True)
class PatternComprehension(Expr):
    path_variable: str | None
    pattern: PatternPart
    where: Expr | None
    projection: Expr


@dataclass(frozen=True)
class Subquery(Expr):
    """EXISTS { } or COUNT { }: either a full query or a pattern with an optional WHERE."""

    kind: str  # "exists" or "count"
    query: Query | None
    patterns: tuple[PatternPart, ...]
    where: Expr | None


@dataclass(frozen=True)
class MapProjection(Expr):
    variable: str
    # ("prop", key, None) | ("all", "*", None) | ("expr", key, expr) | ("var", name, None)
    items: tuple[tuple[str, str, Expr | None], ...]


class Direction(StrEnum):
    OUT = "out"  # (a)-[]->(b)
    IN = "in"  # (a)<-[]-(b)
    BOTH = "both"  # (a)-[]-(b)


@dataclass(frozen=True)
class NodePattern:
    variable: str | None
    labels: tuple[tuple[str, ...], ...] = ()
    properties: MapLiteral | None = None


@dataclass(frozen=True)
class RelPattern:
    variable: str | None
    types: tuple[str, ...]
    direction: Direction
    # None: exactly one hop; else (min, max) with None for "unbounded".
    length: tuple[int | None, int | None] | None = None
    properties: MapLiteral | None = None
    # The range as written (`*` is (None, None), `*1..` is (1, None)): the complexity score reads it.
    written: tuple[int | None, int | None] | None = None

    @property
    def variable_length(self) -> bool:
        return self.length is not None


class Shortest(StrEnum):
    ONE = "shortestPath"
    ALL = "allShortestPaths"


@dataclass(frozen=True)
class PatternPart:
    variable: str | None
    nodes: tuple[NodePattern, ...]
    rels: tuple[RelPattern, ...]
    shortest: Shortest | None = None


class Clause:
    """Base of every clause."""


@dataclass(frozen=True)
class Match(Clause):
    patterns: tuple[PatternPart, ...]
    where: Expr | None
    optional: bool = False


@dataclass(frozen=True)
class Unwind(Clause):
    expression: Expr
    variable: str


@dataclass(frozen=True)
class ProjectionItem:
    expression: Expr
    alias: str  # the explicit alias, or the expression's text as written
    aliased: bool = True  # whether the alias was written (`AS name`)


@dataclass(frozen=True)
class SortItem:
    expression: Expr
    descending: bool = False


@dataclass(frozen=True)
class Projection:
    items: tuple[ProjectionItem, ...]
    star: bool = False
    distinct: bool = False
    order: tuple[SortItem, ...] = ()
    skip: Expr | None = None
    limit: Expr | None = None


@dataclass(frozen=True)
class With(Clause):
    projection: Projection
    where: Expr | None = None


@dataclass(frozen=True)
class Return(Clause):
    projection: Projection


@dataclass(frozen=True)
class CallSubquery(Clause):
    query: Query


@dataclass(frozen=True)
class Create(Clause):
    patterns: tuple[PatternPart, ...]


@dataclass(frozen=True)
class SetItem:
    # ("property", Property, value) | ("replace", Variable, value) | ("merge", Variable, value)
    # | ("labels", Variable, labels)
    kind: str
    target: Expr
    value: Expr | None = None
    labels: tuple[str, ...] = ()


@dataclass(frozen=True)
class Merge(Clause):
    pattern: PatternPart
    on_create: tuple[SetItem, ...] = ()
    on_match: tuple[SetItem, ...] = ()


@dataclass(frozen=True)
class SetClause(Clause):
    items: tuple[SetItem, ...]


@dataclass(frozen=True)
class Remove(Clause):
    items: tuple[SetItem, ...]  # kinds "property" or "labels"


@dataclass(frozen=True)
class Delete(Clause):
    expressions: tuple[Expr, ...]
    detach: bool = False


UPDATING_CLAUSES = (Create, Merge, SetClause, Remove, Delete)


@dataclass(frozen=True)
class SingleQuery:
    clauses: tuple[Clause, ...]


@dataclass(frozen=True)
class Query:
    parts: tuple[SingleQuery, ...]
    # union_all[i] joins parts[i] and parts[i + 1].
    union_all: tuple[bool, ...] = field(default=())
