"""Checks before translation: updating clauses, and the reference's complexity guard.

The fitness score follows the reference analyzer (reference/behaviour.md §1) so that a query the
reference refuses as too complex is refused here too, and one it accepts is accepted.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields, is_dataclass

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import MutationNotAllowed, QueryTooComplex

# Fitness at or below this is refused (the reference's bound for explore queries).
COMPLEXITY_BOUND = -7
NAME_KEYS = ("objectid", "name")


def has_mutation(query: a.Query) -> bool:
    return any(isinstance(node, a.UPDATING_CLAUSES) for node in walk(query))


def validate(query: a.Query, *, allow_mutations: bool, complexity_limit: bool = True) -> bool:
    """Raises when the query may not run; returns whether it updates the graph."""
    mutation = has_mutation(query)
    if mutation and not allow_mutations:
        raise MutationNotAllowed()
    if complexity_limit and fitness(query) <= COMPLEXITY_BOUND:
        raise QueryTooComplex()
    return mutation


def walk(node: object) -> Iterator[object]:
    """Every AST node below `node`, depth first."""
    yield node
    if is_dataclass(node):
        for f in fields(node):
            yield from walk(getattr(node, f.name))
    elif isinstance(node, tuple):
        for item in node:
            yield from walk(item)


def fitness(query: a.Query) -> int:
    return sum(_single_query_fitness(part) for part in query.parts)


def _single_query_fitness(single: a.SingleQuery) -> int:
    score = 0
    matches = 0
    with_parts = 0
    for clause in single.clauses:
        if isinstance(clause, a.Match):
            matches += 1
            score -= 1 if clause.optional else 0
            for part in clause.patterns:
                score += _pattern_fitness(part)
            if clause.where is not None:
                score += _expression_fitness(clause.where)
        elif isinstance(clause, a.With):
            with_parts += 1
            score -= 3
            score += _projection_fitness(clause.projection)
            if clause.where is not None:
                score += _expression_fitness(clause.where)
        elif isinstance(clause, a.Return):
            score += _projection_fitness(clause.projection)
        elif isinstance(clause, a.CallSubquery):
            score += fitness(clause.query)
    if with_parts > 2:
        score -= with_parts
    if matches > 2:
        score -= matches
    return score


def _projection_fitness(projection: a.Projection) -> int:
    score = 1 if projection.distinct else 0
    limit = projection.limit
    if isinstance(limit, a.Literal) and isinstance(limit.value, int) and limit.value <= 300:
        score += 1
    for item in projection.items:
        score += _expression_fitness(item.expression)
    return score


def _kinds_fitness(count: int) -> int:
    if count == 1:
        return 2
    if 2 <= count <= 15:
        return 1
    return 0


def _map_fitness(properties: a.MapLiteral | None) -> int:
    if properties is None:
        return 0
    return sum(4 if key.lower() in NAME_KEYS else 3 for key, _ in properties.items)


def _pattern_fitness(part: a.PatternPart) -> int:
    score = 0
    if part.shortest is a.Shortest.ONE:
        score += 5
    elif part.shortest is a.Shortest.ALL:
        score += 4
    elements = len(part.nodes) + len(part.rels)
    if elements > 3:
        score -= elements
    for node in part.nodes:
        labels = sum(len(group) for group in node.labels)
        score += _kinds_fitness(labels) if labels else 0
        score += _map_fitness(node.properties)
    for rel in part.rels:
        score -= 1
        if rel.direction is a.Direction.BOTH:
            score -= 3
        score += _kinds_fitness(len(rel.types)) if rel.types else 0
        score += _map_fitness(rel.properties)
        if rel.written is not None:
            low, high = rel.written
            if low is None and high is None:
                score -= 3
            else:
                score += (low or 0) - (high or 0)
    return score


def _is_name_property(expr: a.Expr) -> bool:
    return isinstance(expr, a.Property) and isinstance(expr.subject, a.Variable) and expr.key.lower() in NAME_KEYS


def _expression_fitness(expr: a.Expr) -> int:
    score = 0
    for node in walk(expr):
        if isinstance(node, a.Unary) and node.op == "NOT":
            score -= 1
        elif isinstance(node, a.Binary):
            if node.op == "AND":
                score += 1
            elif node.op == "OR":
                score -= 1
            elif node.op in ("=", "<>", "<", ">", "<=", ">=", "IN", "STARTS", "ENDS", "CONTAINS", "=~"):
                if _is_name_property(node.left) or _is_name_property(node.right):
                    score += 4
                score += {"=": 3, "<>": -1, "STARTS": 2, "ENDS": 2, "CONTAINS": 2, "=~": 2}.get(node.op, 1)
        elif isinstance(node, a.IsNull):
            score += -1 if node.negated else 3
        elif isinstance(node, a.Quantifier):
            score -= 1
            score -= 1 if node.kind in ("all", "none") else 2
        elif isinstance(node, a.HasLabels):
            count = sum(len(group) for group in node.labels)
            score += 2 if count == 1 else 1
        elif isinstance(node, a.PatternPredicate | a.PatternComprehension):
            score += _pattern_fitness(node.pattern)
        elif isinstance(node, a.Subquery):
            for part in node.patterns:
                score += _pattern_fitness(part)
    return score
