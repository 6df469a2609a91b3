"""Which end a variable-length walk starts from, when the statistics of the graph are known.

The filters decide first (patterns.selectivity: bound > identified > filtered). Between two ends no filter
narrows, the smaller estimated set wins: the nodes of its labels (written in the pattern or as `(n:Label)`
in the WHERE clause), at most the edges of a typed single relationship it stands on. So
`(m)-[:MemberOf*1..]->(g)-[:ReadGMSAPassword]->()` walks from the few `g` with such an edge, not from every
node of the graph.
"""

from __future__ import annotations

from collections.abc import Mapping

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.statistics import KindStatistics
from houndgraph.graph.cypher.translate import shortest as sp
from houndgraph.graph.cypher.translate.values import Scope, relationship_kind_ids

# Ranks from patterns.selectivity at or above which an end is filtered by its properties or bound.
FILTERED = 3
# Label conjuncts of a WHERE clause, by variable: `WHERE (t:Tag_Tier_Zero)`.
Labels = dict[str, tuple[tuple[str, ...], ...]]


def where_labels(where: a.Expr | None) -> Labels:
    labels: Labels = {}
    for term in sp.conjuncts(where):
        if isinstance(term, a.HasLabels) and isinstance(term.subject, a.Variable):
            name = term.subject.name
            labels[name] = labels.get(name, ()) + term.labels
    return labels


def walk_from_right(stats: KindStatistics | None, kinds: Mapping[str, int], part: a.PatternPart, index: int,
                    ranks: list[int], labels: Labels) -> bool:
    """Whether the variable-length relationship `part.rels[index]` is walked from its right end."""
    left, right = ranks[index], ranks[index + 1]
    if stats is None or max(left, right) >= FILTERED:
        return right > left
    sizes = [estimate(stats, kinds, part, i, labels) for i in (index, index + 1)]
    return sizes[1] < sizes[0]


def estimate(stats: KindStatistics, kinds: Mapping[str, int], part: a.PatternPart, position: int,
             labels: Labels) -> float:
    """Estimated nodes the pattern node at `position` stands for, before any filter."""
    node = part.nodes[position]
    groups = node.labels + (labels.get(node.variable, ()) if node.variable is not None else ())
    size = stats.nodes
    for group in groups:
        size = min(size, stats.nodes_of([kinds[name] for name in group if name in kinds]))
    for neighbour in (position - 1, position):
        if 0 <= neighbour < len(part.rels):
            rel = part.rels[neighbour]
            if rel.length is None and rel.types:
                size = min(size, stats.edges_of(relationship_kind_ids(kinds, rel.types)))
    return size


# Properties that name one object (or one per domain: `objectid ENDS WITH '-512'`).
_IDENTIFYING = frozenset({"objectid", "name"})
# Comparisons of a property with a constant that the WHERE clause can filter a node on before any walk.
_FILTERING_OPS = frozenset({"=", "IN", "STARTS", "ENDS", "CONTAINS", "=~", "<", ">", "<=", ">="})
# Filters, by variable: the lower-cased property keys compared with a constant.
Filters = dict[str, set[str]]


def where_filters(where: a.Expr | None) -> Filters:
    """The properties the top-level AND conjuncts of a WHERE clause compare with a constant, by variable:
    what the planner knows of an end's selectivity beyond its inline map and labels."""
    filters: Filters = {}
    for expr in sp.conjuncts(where):
        if not isinstance(expr, a.Binary) or expr.op not in _FILTERING_OPS:
            continue
        for subject, other in ((expr.left, expr.right), (expr.right, expr.left)):
            if isinstance(subject, a.Property) and isinstance(subject.subject, a.Variable) and _constant(other):
                filters.setdefault(subject.subject.name, set()).add(subject.key.lower())
    return filters


def _constant(expr: a.Expr) -> bool:
    if isinstance(expr, a.ListLiteral):
        return all(_constant(item) for item in expr.items)
    return isinstance(expr, a.Literal)


def selectivity(node: a.NodePattern, scope: Scope, filters: Filters | None = None) -> int:
    """How few rows a pattern node stands for, roughly: bound > identified > filtered > labelled > any.
    A variable-length walk starts from the higher end (the left one on a tie)."""
    if node.variable is not None and scope.has(node.variable):
        return 5
    keys = {k.lower() for k, _ in node.properties.items} if node.properties is not None else set()
    if node.variable is not None and filters:
        keys |= filters.get(node.variable, set())
    if keys:
        return 4 if keys & _IDENTIFYING else 3
    return 1 if node.labels else 0
