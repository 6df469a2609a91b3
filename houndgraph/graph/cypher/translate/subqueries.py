"""Expressions that hold a pattern or a query: EXISTS { }, COUNT { }, pattern predicates and
comprehensions, and map projections."""

from __future__ import annotations

from typing import TYPE_CHECKING

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import CypherSemanticError, UnsupportedCypher
from houndgraph.graph.cypher.translate.patterns import From
from houndgraph.graph.cypher.translate.values import T, Typed, as_json

if TYPE_CHECKING:
    from houndgraph.graph.cypher.translate.translator import Translator
    from houndgraph.graph.cypher.translate.values import Scope


class SubqueryCompiler:
    """Mixed into Translator."""

    def pattern_from(self: Translator, scope: Scope, patterns: tuple[a.PatternPart, ...],
                     where: a.Expr | None) -> tuple[From, Scope]:
        inner = From()
        inner_scope = scope.child()
        clause = a.Match(patterns, where)
        saved, self.prefix = self.prefix, None
        try:
            rels = []
            for part in patterns:
                rels.extend(self.pattern_part(inner, inner_scope, part, clause))
            self.unique_relationships(inner, rels)
            if where is not None:
                inner.where.append(self.pred(where, inner_scope))
        finally:
            self.prefix = saved
        return inner, inner_scope

    def _PatternPredicate(self: Translator, e: a.PatternPredicate, scope: Scope) -> Typed:  # noqa: N802
        for node in e.pattern.nodes:
            if node.variable is not None and not scope.has(node.variable):
                raise CypherSemanticError(f"Variable `{node.variable}` not defined (a pattern predicate cannot "
                                          "introduce new variables)")
        inner, _ = self.pattern_from(scope, (e.pattern,), None)
        return Typed(f"EXISTS (SELECT 1 {inner.sql()})", T.BOOL)

    def _Subquery(self: Translator, e: a.Subquery, scope: Scope) -> Typed:  # noqa: N802
        if e.query is not None:
            saved, self.aggregating = self.aggregating, False
            try:
                sql, _ = self.query_sql(e.query, scope, top=False)
            finally:
                self.aggregating = saved
            if e.kind == "exists":
                return Typed(f"EXISTS ({sql})", T.BOOL)
            return Typed(f"to_jsonb((SELECT count(*) FROM ({sql}) AS counted))", T.JSON)
        inner, _ = self.pattern_from(scope, e.patterns, e.where)
        if e.kind == "exists":
            return Typed(f"EXISTS (SELECT 1 {inner.sql()})", T.BOOL)
        return Typed(f"to_jsonb((SELECT count(*) {inner.sql()}))", T.JSON)

    def _PatternComprehension(self: Translator, e: a.PatternComprehension, scope: Scope) -> Typed:  # noqa: N802
        part = a.PatternPart(e.path_variable, e.pattern.nodes, e.pattern.rels)
        inner, inner_scope = self.pattern_from(scope, (part,), e.where)
        saved, self.aggregating = self.aggregating, False
        try:
            projection = self.expr(e.projection, inner_scope)
        finally:
            self.aggregating = saved
        listed = self.aggregate_list(projection, "1", "TRUE")
        return Typed(f"(SELECT {listed.sql} {inner.sql()})", listed.type)

    def _MapProjection(self: Translator, e: a.MapProjection, scope: Scope) -> Typed:  # noqa: N802
        subject = scope.lookup(e.variable)
        if subject.type in (T.NODE, T.REL):
            source = self.entity_properties(subject)
        elif subject.type is T.JSON:
            source = subject.sql
        else:
            raise UnsupportedCypher(f"a map projection of a {subject.type.value}")
        base = "'{}'::jsonb"
        pairs: list[str] = []
        for kind, key, value in e.items:
            if kind == "all":
                base = f"coalesce({source}, '{{}}'::jsonb)"
                continue
            if kind == "prop":
                item = f"({source})->{self.params.key(key)}"
            elif kind == "var":
                item = as_json(self.guard_scalar(scope.lookup(key))).sql
            else:
                assert value is not None
                item = as_json(self.guard_scalar(self.expr(value, scope))).sql
            pairs.append(f"{self.params.add(key, 'text')}, {item}")
        built = f"jsonb_build_object({', '.join(pairs)})" if pairs else "'{}'::jsonb"
        sql = f"({base} || {built})"
        return Typed(f"(CASE WHEN {subject.sql} IS NULL THEN NULL ELSE {sql} END)", T.JSON)

    @staticmethod
    def guard_scalar(value: Typed) -> Typed:
        if value.type in (T.NODE, T.REL, T.PATH, T.NODES, T.RELS, T.PATHS):
            raise UnsupportedCypher("a node, relationship or path inside a map")
        return value
