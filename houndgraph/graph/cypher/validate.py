"""Checks before translation: updating clauses and what they may hold, and the reference's complexity guard.

The fitness score follows the reference analyzer (reference/behaviour.md §1) so that a query the
reference refuses as too complex is refused here too, and one it accepts is accepted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import (
    CypherError,
    CypherSemanticError,
    CypherSyntaxError,
    MutationNotAllowed,
    QueryTooComplex,
    UnsupportedCypher,
)
from houndgraph.graph.cypher.translate.values import RELATIONSHIP_SHORTCUTS

# Fitness at or below this is refused (the reference's bound for explore queries).
COMPLEXITY_BOUND = -7
NAME_KEYS = ("objectid", "name")
SHORTCUTS_IN_MUTATIONS = "relationship type shortcuts are not supported in graph mutations"
ALREADY_DECLARED_NODE = ("Can't create node `{}` with labels or properties here. The variable is already declared "
                         "in this context")


def has_mutation(query: a.Query) -> bool:
    return any(isinstance(node, a.UPDATING_CLAUSES) for node in walk(query))


def validate(query: a.Query, *, allow_mutations: bool, complexity_limit: bool = True) -> bool:
    """Raises when the query may not run; returns whether it updates the graph."""
    mutation = has_mutation(query)
    if mutation and not allow_mutations:
        raise MutationNotAllowed()
    if complexity_limit and fitness(query) <= COMPLEXITY_BOUND:
        raise QueryTooComplex()
    if mutation:
        _check_updating_query(query)
    refuse_pattern_values(query)
    return mutation


PATTERN_VALUE = ("A pattern expression should only be used in order to test the existence of a pattern: use "
                 "EXISTS {...} or COUNT {...}, or a pattern comprehension for its paths (UnexpectedSyntax)")
_PREDICATE_OPS = frozenset({"AND", "OR", "XOR"})


def refuse_pattern_values(node: object, predicate: bool = False) -> None:
    """Neo4j's rule for a pattern written as an expression, `(n)-->()`: it tests whether the pattern exists, so it
    stands only where a predicate does (a WHERE, an operand of AND, OR, XOR or NOT, a CASE condition).
    As a value (`RETURN (n)-->()`, `size(()--())`, `head((n)-->())`) it is a SyntaxError."""
    if isinstance(node, a.PatternPredicate):
        if not predicate:
            raise CypherSyntaxError(PATTERN_VALUE)
        return
    if isinstance(node, tuple):
        for item in node:
            refuse_pattern_values(item)
    elif (isinstance(node, a.Binary) and node.op in _PREDICATE_OPS) or (isinstance(node, a.Unary) and node.op == "NOT"):
        for operand in (node.left, node.right) if isinstance(node, a.Binary) else (node.operand,):
            refuse_pattern_values(operand, predicate=True)
    elif isinstance(node, a.Case):
        refuse_pattern_values(node.subject)
        for condition, result in node.whens:
            refuse_pattern_values(condition, predicate=node.subject is None)
            refuse_pattern_values(result)
        refuse_pattern_values(node.default)
    else:
        for name in a.field_names(node):
            refuse_pattern_values(getattr(node, name), predicate=name == "where")


def _check_updating_query(query: a.Query) -> None:
    if len(query.parts) != 1:
        raise UnsupportedCypher("UNION in a query with updating clauses")
    clauses = query.parts[0].clauses
    for clause in clauses:
        if not isinstance(clause, a.UPDATING_CLAUSES) and any(
                isinstance(node, a.UPDATING_CLAUSES) for node in walk(clause)):
            raise UnsupportedCypher("updating clauses inside a subquery")
    if any(isinstance(node, a.RelPattern) and set(node.types) & set(RELATIONSHIP_SHORTCUTS) for node in walk(query)):
        raise CypherError(SHORTCUTS_IN_MUTATIONS)
    last = clauses[-1]
    if not isinstance(last, (a.Return, *a.UPDATING_CLAUSES)):
        raise CypherSemanticError(f"Query cannot conclude with {type(last).__name__.upper()} "
                                  "(must be a RETURN clause or an update clause)")


def check_create(patterns: Sequence[a.PatternPart], known: Iterable[str]) -> None:
    """Refuses what CREATE cannot create, given the variables bound before it."""
    declared = set(known)
    for part in patterns:
        if part.shortest is not None:
            raise CypherSemanticError(f"{part.shortest} cannot be used to create a pattern")
        _refuse_bound_alone(part, declared)
        for node in part.nodes:
            _check_created_node(node, declared)
        for rel in part.rels:
            _check_new_relationship(rel, "CREATE")
            if rel.direction is a.Direction.BOTH:
                raise CypherSemanticError("Only directed relationships are supported in CREATE")
            if rel.variable is not None and rel.variable in declared:
                raise CypherSemanticError(f"Variable `{rel.variable}` already declared")
            if rel.variable is not None:
                declared.add(rel.variable)


def _refuse_bound_alone(part: a.PatternPart, declared: set[str]) -> None:
    """`MATCH (a) CREATE (a)`: a pattern of one node bound before would create or merge nothing."""
    if not part.rels and part.nodes[0].variable is not None and part.nodes[0].variable in declared:
        raise CypherSemanticError(f"Variable `{part.nodes[0].variable}` already declared (VariableAlreadyBound)")


def _check_created_node(node: a.NodePattern, declared: set[str]) -> None:
    if node.variable is not None and node.variable in declared:
        if node.labels or node.properties is not None:
            raise CypherSemanticError(ALREADY_DECLARED_NODE.format(node.variable))
        return
    if any(len(group) > 1 for group in node.labels):
        raise CypherSemanticError("label expressions (A|B) cannot be used to create a node")
    if node.variable is not None:
        declared.add(node.variable)


def check_merge(part: a.PatternPart, known: Iterable[str]) -> None:
    """Refuses what MERGE cannot match or create, given the variables bound before it."""
    if part.shortest is not None:
        raise CypherSemanticError(f"{part.shortest} cannot be used in MERGE")
    declared = set(known)
    _refuse_bound_alone(part, declared)
    for node in part.nodes:
        if node.variable in declared and (node.labels or node.properties is not None):
            raise CypherSemanticError(ALREADY_DECLARED_NODE.format(node.variable))
    for rel in part.rels:
        _check_new_relationship(rel, "MERGE")


def _check_new_relationship(rel: a.RelPattern, clause: str) -> None:
    if rel.variable_length:
        raise CypherSemanticError(f"Variable length relationships cannot be used in {clause}")
    if len(rel.types) != 1:
        raise CypherSemanticError(f"Exactly one relationship type must be specified for {clause}")


def walk(node: object, stop: Callable[[object], bool] | None = None) -> Iterator[object]:
    """Every AST node below `node`, depth first; not below a node for which `stop` is true."""
    yield node
    if stop is not None and stop(node):
        return
    if names := a.field_names(node):
        for name in names:
            yield from walk(getattr(node, name), stop)
    elif isinstance(node, tuple):
        for item in node:
            yield from walk(item, stop)


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
