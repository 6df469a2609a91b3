"""shortestPath / allShortestPaths inside MATCH.

The search itself runs outside the statement (graph/paths.py: bidirectional or single-root BFS, one
batched query per level). The translator first asks for it: it raises NeedShortestPaths with two
small queries that list the candidate end points (the clauses before this MATCH, plus the end's own
pattern and the WHERE conditions that only concern it). Once the executor has the paths, the
statement joins them as a parameter table and applies the rest of the MATCH as usual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import UnsupportedCypher
from houndgraph.graph.cypher.translate.patterns import From, NeedShortestPaths, ShortestRequest
from houndgraph.graph.cypher.translate.values import T, Typed, relationship_kind_ids
from houndgraph.graph.cypher.validate import walk

if TYPE_CHECKING:
    from houndgraph.graph.cypher.translate.translator import Translator
    from houndgraph.graph.cypher.translate.values import Scope

# One found path: (left end id, right end id, [node, edge, node, ...]).
FoundPath = tuple[int, int, list[int]]


def conjuncts(e: a.Expr | None) -> list[a.Expr]:
    if e is None:
        return []
    if isinstance(e, a.Binary) and e.op == "AND":
        return conjuncts(e.left) + conjuncts(e.right)
    return [e]


def free_variables(e: a.Expr) -> set[str]:
    names = {n.name for n in walk(e) if isinstance(n, a.Variable)}
    bound = {n.variable for n in walk(e) if isinstance(n, a.ListComprehension | a.Quantifier)}
    return names - bound


class ShortestPathCompiler:
    """Mixed into Translator."""

    def shortest_part(self: Translator, frm: From, scope: Scope, part: a.PatternPart,
                      clause: a.Match) -> list[tuple[a.RelPattern, Typed]]:
        if len(part.rels) != 1:
            raise UnsupportedCypher(f"{part.shortest} over a pattern of more than one relationship")
        if self.prefix is None:
            raise UnsupportedCypher(f"{part.shortest} inside a subquery")
        rel = part.rels[0]
        low, high = rel.length if rel.length is not None else (1, 1)
        low = 1 if low is None else low
        if low > 1:
            raise UnsupportedCypher(f"{part.shortest} with a minimum length above 1")
        key = self.shortest_seen
        self.shortest_seen += 1
        if key not in self.shortest:
            kind_ids = None
            if rel.types:
                kind_ids = tuple(relationship_kind_ids(self.kinds, rel.types))
            raise NeedShortestPaths(ShortestRequest(
                key, self.endpoint_query(part.nodes[0], clause, scope),
                self.endpoint_query(part.nodes[1], clause, scope), kind_ids, rel.direction, low, high,
                part.shortest is a.Shortest.ALL))
        left = self.node(frm, scope, part.nodes[0])
        right = self.node(frm, scope, part.nodes[1])
        found = self.shortest[key]
        alias = self.aliases.new("sp")
        starts = self.params.add([p[0] for p in found], "bigint[]")
        ends = self.params.add([p[1] for p in found], "bigint[]")
        paths = self.params.add(["{" + ",".join(map(str, p[2])) + "}" for p in found], "text[]")
        frm.join(f"CROSS JOIN (SELECT s, t, path::bigint[] AS path FROM unnest({starts}, {ends}, {paths}) "
                 f"AS u(s, t, path)) AS {alias}")
        frm.where.append(f"{alias}.s = {left.sql} AND {alias}.t = {right.sql}")
        value = Typed(f"hg_path_edges({alias}.path)", T.RELS)
        if rel.variable is not None:
            scope.bind(rel.variable, value)
        if part.variable is not None:
            scope.bind(part.variable, Typed(f"{alias}.path", T.PATH))
        return [(rel, value)]

    def endpoint_query(self: Translator, node: a.NodePattern, clause: a.Match, scope: Scope) -> a.Query:
        assert self.prefix is not None
        variable = node.variable or " end"
        known = set(self.prefix_variables) | {variable}
        where_terms = [c for c in conjuncts(clause.where) if free_variables(c) <= known]
        where: a.Expr | None = None
        for term in where_terms:
            where = term if where is None else a.Binary("AND", where, term)
        pattern = a.PatternPart(None, (a.NodePattern(variable, node.labels, node.properties),), ())
        ids = a.Projection((a.ProjectionItem(a.FunctionCall("id", (a.Variable(variable),)), "id"),), distinct=True)
        return a.Query((a.SingleQuery((*self.prefix, a.Match((pattern,), where), a.Return(ids))),))
