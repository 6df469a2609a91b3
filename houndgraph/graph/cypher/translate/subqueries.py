"""Expressions that hold a pattern or a query: EXISTS { }, COUNT { }, pattern predicates and
comprehensions, and map projections."""

from __future__ import annotations

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import CypherSemanticError, UnsupportedCypher
from houndgraph.graph.cypher.translate import expressions as ex
from houndgraph.graph.cypher.translate import lists
from houndgraph.graph.cypher.translate import patterns as pt
from houndgraph.graph.cypher.translate import translator as tr
from houndgraph.graph.cypher.translate.state import Translation
from houndgraph.graph.cypher.translate.values import From, Scope, T, Typed, as_json


def pattern_from(st: Translation, scope: Scope, patterns: tuple[a.PatternPart, ...],
                 where: a.Expr | None) -> tuple[From, Scope]:
    inner = From()
    inner_scope = scope.child()
    with st.within(top_match=False):
        pt.bind_patterns(st, inner, inner_scope, patterns, where)
    return inner, inner_scope


def pattern_predicate(st: Translation, e: a.PatternPredicate, scope: Scope) -> Typed:
    names = [node.variable for node in e.pattern.nodes] + [rel.variable for rel in e.pattern.rels]
    for name in names:
        if name is not None and not scope.has(name):
            raise CypherSemanticError(f"Variable `{name}` not defined (a pattern predicate cannot "
                                      "introduce new variables) (UndefinedVariable)")
    inner, _ = pattern_from(st, scope, (e.pattern,), None)
    return Typed(f"EXISTS (SELECT 1 {inner.sql()})", T.BOOL)


def subquery(st: Translation, e: a.Subquery, scope: Scope) -> Typed:
    if e.query is not None:
        with st.within(aggregating=False):
            sql, _ = tr.query_sql(st, e.query, scope, top=False)
        if e.kind == "exists":
            return Typed(f"EXISTS ({sql})", T.BOOL)
        return Typed(f"to_jsonb((SELECT count(*) FROM ({sql}) AS counted))", T.JSON)
    inner, _ = pattern_from(st, scope, e.patterns, e.where)
    if e.kind == "exists":
        return Typed(f"EXISTS (SELECT 1 {inner.sql()})", T.BOOL)
    return Typed(f"to_jsonb((SELECT count(*) {inner.sql()}))", T.JSON)


def pattern_comprehension(st: Translation, e: a.PatternComprehension, scope: Scope) -> Typed:
    part = a.PatternPart(e.path_variable, e.pattern.nodes, e.pattern.rels)
    inner, inner_scope = pattern_from(st, scope, (part,), e.where)
    with st.within(aggregating=False):
        projection = ex.expr(st, e.projection, inner_scope)
    listed = lists.aggregate_list(projection, "1", "TRUE")
    return Typed(f"(SELECT {listed.sql} {inner.sql()})", listed.type)


def map_projection(st: Translation, e: a.MapProjection, scope: Scope) -> Typed:
    subject = scope.lookup(e.variable)
    if subject.type in (T.NODE, T.REL):
        source = ex.entity_properties(subject)
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
            item = f"({source})->{st.params.key(key)}"
        elif kind == "var":
            item = as_json(guard_scalar(scope.lookup(key))).sql
        else:
            assert value is not None
            item = as_json(guard_scalar(ex.expr(st, value, scope))).sql
        pairs.append(f"{st.params.add(key, 'text')}, {item}")
    built = f"jsonb_build_object({', '.join(pairs)})" if pairs else "'{}'::jsonb"
    sql = f"({base} || {built})"
    return Typed(f"(CASE WHEN {subject.sql} IS NULL THEN NULL ELSE {sql} END)", T.JSON)


def guard_scalar(value: Typed) -> Typed:
    if value.type in (T.NODE, T.REL, T.PATH, T.NODES, T.RELS, T.PATHS):
        raise UnsupportedCypher("a node, relationship or path inside a map")
    return value
