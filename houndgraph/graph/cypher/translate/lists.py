"""Expressions over lists: comprehensions, quantifiers (any, all, none, single) and reduce().

Cypher's null rules: over a null list each of them is null; a quantifier whose predicate is null for some
element is null unless the other elements decide it (any: one true; all and none: one false / one true;
single: two trues)."""

from __future__ import annotations

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import UnsupportedCypher
from houndgraph.graph.cypher.translate import expressions as ex
from houndgraph.graph.cypher.translate import operators as ops
from houndgraph.graph.cypher.translate import type_checks as types
from houndgraph.graph.cypher.translate.state import Translation
from houndgraph.graph.cypher.translate.values import Scope, T, Typed, as_json


def missing(values: Typed) -> str:
    """SQL true when a list value is null."""
    if values.type is T.JSON:
        return f"coalesce({values.sql}, 'null'::jsonb) = 'null'::jsonb"
    return f"{values.sql} IS NULL"


def null_over_null(values: Typed, sql: str) -> str:
    return f"(CASE WHEN {missing(values)} THEN NULL ELSE {sql} END)"


def iterate(st: Translation, variable: str, source: a.Expr, scope: Scope) -> tuple[str, Scope, str, Typed]:
    """FROM item enumerating a list with its position; the element bound in a child scope; the list."""
    values = ex.expr(st, source, scope)
    alias = st.aliases.new("l")
    inner = scope.child()
    if values.type in (T.NODES, T.RELS):
        table = "node" if values.type is T.NODES else "edge"
        entity = st.aliases.new("n" if table == "node" else "e")
        from_sql = (f"unnest({values.sql}) WITH ORDINALITY AS {alias}(v, i) "
                    f"LEFT JOIN {table} AS {entity} ON {entity}.id = {alias}.v")
        inner.bind(variable, Typed(f"{alias}.v", T.NODE if table == "node" else T.REL, entity))
    elif values.type is T.PATHS:
        from_sql = f"jsonb_array_elements({values.sql}) WITH ORDINALITY AS {alias}(j, i)"
        inner.bind(variable, Typed(
            f"(SELECT array_agg(pe.id::bigint) FROM jsonb_array_elements_text({alias}.j) AS pe(id))", T.PATH))
    elif values.type is T.JSON:
        from_sql = f"jsonb_array_elements({values.sql}) WITH ORDINALITY AS {alias}(v, i)"
        inner.bind(variable, Typed(f"nullif({alias}.v, 'null'::jsonb)", T.JSON))
    else:
        raise UnsupportedCypher(f"iterating over a {values.type.value}")
    return from_sql, inner, f"{alias}.i", values


def aggregate_list(value: Typed, order: str, where: str) -> Typed:
    filter_sql = f" FILTER (WHERE {where})" if where != "TRUE" else ""
    if value.type in (T.NODE, T.REL):
        list_type = T.NODES if value.type is T.NODE else T.RELS
        return Typed(f"coalesce(array_agg({value.sql} ORDER BY {order}){filter_sql}, '{{}}')", list_type)
    if value.type is T.PATH:
        return Typed(f"coalesce(jsonb_agg(to_jsonb({value.sql}) ORDER BY {order}){filter_sql}, '[]')", T.PATHS)
    return Typed(f"coalesce(jsonb_agg({as_json(value).sql} ORDER BY {order}){filter_sql}, '[]'::jsonb)", T.JSON)


def list_comprehension(st: Translation, e: a.ListComprehension, scope: Scope) -> Typed:
    from_sql, inner, order, values = iterate(st, e.variable, e.source, scope)
    where = ex.pred(st, e.where, inner) if e.where is not None else "TRUE"
    projection = ex.expr(st, e.projection, inner) if e.projection is not None else inner.lookup(e.variable)
    listed = aggregate_list(projection, order, "TRUE")
    return Typed(null_over_null(values, f"(SELECT {listed.sql} FROM {from_sql} WHERE {where})"), listed.type)


def quantifier(st: Translation, e: a.Quantifier, scope: Scope) -> Typed:
    types.refuse_arithmetic_on_literal_elements(e.variable, e.source, e.where)
    from_sql, inner, _, values = iterate(st, e.variable, e.source, scope)
    test = ex.pred(st, e.where, inner) if e.where is not None else "TRUE"
    trues = f"count(*) FILTER (WHERE {test})"
    unknown = f"count(*) FILTER (WHERE ({test}) IS NULL) > 0"
    aggregate = {
        "any": f"CASE WHEN {trues} > 0 THEN TRUE WHEN {unknown} THEN NULL ELSE FALSE END",
        "all": f"CASE WHEN count(*) FILTER (WHERE NOT ({test})) > 0 THEN FALSE WHEN {unknown} THEN NULL ELSE TRUE END",
        "none": f"CASE WHEN {trues} > 0 THEN FALSE WHEN {unknown} THEN NULL ELSE TRUE END",
        "single": f"CASE WHEN {trues} > 1 THEN FALSE WHEN {unknown} THEN NULL ELSE {trues} = 1 END",
    }[e.kind]
    return Typed(null_over_null(values, f"(SELECT {aggregate} FROM {from_sql})"), T.BOOL)


def reduce_list(st: Translation, e: a.Reduce, scope: Scope) -> Typed:
    """A recursive walk over the list's positions, carrying the accumulator as jsonb."""
    values = ex.expr(st, e.source, scope)
    walk = st.aliases.new("r")
    inner = scope.child()
    inner.bind(e.accumulator, Typed(f"{walk}.acc", T.JSON))
    if values.type in (T.NODES, T.RELS):
        length = f"coalesce(cardinality({values.sql}), 0)"
        element = Typed(f"({values.sql})[{walk}.i + 1]", T.NODE if values.type is T.NODES else T.REL)
    elif values.type is T.JSON:
        length = (f"(CASE WHEN jsonb_typeof({values.sql}) = 'array' THEN jsonb_array_length({values.sql}) "
                  "ELSE 0 END)")
        element = Typed(f"nullif(({values.sql})->({walk}.i), 'null'::jsonb)", T.JSON)
    else:
        raise UnsupportedCypher(f"reduce() over a {values.type.value}")
    inner.bind(e.variable, element)
    step = as_json(ex.expr(st, e.expression, inner)).sql
    initial = ex.json_sql(st, e.initial, scope)
    return Typed(null_over_null(values, f"(WITH RECURSIVE {walk}(i, acc) AS (SELECT 0, {initial} "
                                        f"UNION ALL SELECT {walk}.i + 1, {step} FROM {walk} WHERE {walk}.i < {length}) "
                                        f"SELECT acc FROM {walk} ORDER BY i DESC LIMIT 1)"), T.JSON)


def list_membership(lj: str, rj: str) -> str:
    """`[null] IN [[null]]` with Cypher's equality of lists and maps (operators.list_equality): true when an element is
    equal, else null when an element compares as null, else false; null for a null list or a null value."""
    equal = f"(CASE WHEN m.v = 'null'::jsonb THEN NULL ELSE {ops.list_equality(lj, 'm.v')} END)"
    return (f"(CASE WHEN jsonb_typeof({rj}) IS DISTINCT FROM 'array' THEN NULL "
            f"WHEN jsonb_array_length({rj}) = 0 THEN FALSE "
            f"WHEN coalesce({lj}, 'null'::jsonb) = 'null'::jsonb THEN NULL "
            f"ELSE (SELECT CASE WHEN bool_or({equal}) THEN TRUE WHEN bool_or(({equal}) IS NULL) THEN NULL "
            f"ELSE FALSE END FROM jsonb_array_elements({rj}) AS m(v)) END)")
