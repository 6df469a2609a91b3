"""Cypher expressions -> SQL expressions, with Cypher's null and type rules: the dispatch over expression kinds,
literals, variables, property, index and slice access, and label tests (operators in operators.py, functions
in functions.py).

Scalars travel as jsonb; the helpers of `graph/cypher/helpers.sql` (hg_*) give operators Cypher's meaning.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import CypherSemanticError, UnsupportedCypher
from houndgraph.graph.cypher.translate import constants, lists
from houndgraph.graph.cypher.translate import functions as fn
from houndgraph.graph.cypher.translate import operators as ops
from houndgraph.graph.cypher.translate import subqueries as sq
from houndgraph.graph.cypher.translate import timestamps as ts
from houndgraph.graph.cypher.translate import type_checks as types
from houndgraph.graph.cypher.translate.state import Translation
from houndgraph.graph.cypher.translate.values import (
    NULL_JSON,
    Scope,
    T,
    Typed,
    as_bool,
    as_json,
    entity_json,
    relationship_kind_ids,
)
from houndgraph.graph.cypher.validate import walk

# Compiles one kind of expression node (the node's own class as its second argument).
Handler = Callable[[Translation, Any, Scope], Typed]

def expr(st: Translation, e: a.Expr, scope: Scope) -> Typed:
    if (column := st.node_keys.get(e)) is not None:
        return Typed(column, T.JSON)
    if (value := constants.folded(st, e, scope)) is not None:
        return value
    handler = _handlers().get(type(e))
    if handler is None:
        raise UnsupportedCypher(type(e).__name__)
    if st.hoisting or not (isinstance(e, a.Binary | a.Unary | a.FunctionCall) and row_independent(e)):
        return handler(st, e, scope)
    # An uncorrelated scalar subquery runs once per statement (an InitPlan), not once per row:
    # `datetime().epochseconds - (90 * 86400)` in a filter over every user.
    with st.within(hoisting=True):
        value = handler(st, e, scope)
    return Typed(f"(SELECT {value.sql})", value.type, value.alias)


# The expressions a computation of literals may hold: no variable, aggregate or subquery.
_ROW_INDEPENDENT = (a.Literal, a.ListLiteral, a.MapLiteral, a.Binary, a.Unary, a.FunctionCall, a.Property, str, int,
                    bool, float, type(None), tuple)


def row_independent(e: a.Expr) -> bool:
    """Whether `e` computes the same value on every row of a statement."""
    for node in walk(e):
        if not isinstance(node, _ROW_INDEPENDENT):
            return False
        if isinstance(node, a.FunctionCall) and (node.name in fn.AGGREGATES or node.name == "rand"):
            return False
    return True


@cache

def _handlers() -> dict[type[a.Expr], Handler]:
    # Built on first use: the handlers of functions and subqueries import this module.
    return {
        a.Literal: literal, a.ListLiteral: list_literal, a.MapLiteral: map_literal, a.Variable: variable_ref,
        a.Property: property_access, a.Index: index_access, a.Slice: slice_access, a.HasLabels: has_labels,
        a.Unary: ops.unary, a.IsNull: ops.is_null, a.Binary: ops.binary, a.Case: ops.case,
        a.ListComprehension: lists.list_comprehension, a.Quantifier: lists.quantifier, a.Reduce: lists.reduce_list,
        a.FunctionCall: fn.function_call, a.CountStar: fn.count_star,
        a.PatternPredicate: sq.pattern_predicate, a.Subquery: sq.subquery,
        a.PatternComprehension: sq.pattern_comprehension, a.MapProjection: sq.map_projection,
    }


def pred(st: Translation, e: a.Expr, scope: Scope) -> str:
    types.refuse_non_boolean_literal(e)
    return as_bool(expr(st, e, scope))


def json_sql(st: Translation, e: a.Expr, scope: Scope) -> str:
    return as_json(expr(st, e, scope)).sql


# -- leaves --------------------------------------------------------------------------------


def literal(st: Translation, e: a.Literal, scope: Scope) -> Typed:
    # The value rides along (Typed.constant) so that a WITH passing it on still knows its type: `WITH 123 AS x
    # RETURN x.num` is a type error, as Neo4j finds it.
    if e.value is None:
        return Typed(NULL_JSON.sql, T.JSON, constant=None)
    if isinstance(e.value, bool):
        return Typed("TRUE" if e.value else "FALSE", T.BOOL, constant=e.value)
    return Typed(st.params.json(e.value), T.JSON, constant=e.value)


def list_literal(st: Translation, e: a.ListLiteral, scope: Scope) -> Typed:
    if all(isinstance(i, a.Literal) for i in e.items):
        values = [i.value for i in e.items]  # type: ignore[attr-defined]
        return Typed(st.params.json(values), T.JSON, constant=values)
    items = [expr(st, i, scope) for i in e.items]
    if items and all(i.type is T.NODE for i in items):
        return Typed(f"ARRAY[{', '.join(i.sql for i in items)}]::bigint[]", T.NODES)
    if items and all(i.type is T.REL for i in items):
        return Typed(f"ARRAY[{', '.join(i.sql for i in items)}]::bigint[]", T.RELS)
    # A list of other values, or mixing entities and other values (`[n, r, 1]`): entities as their tagged objects.
    return Typed(f"jsonb_build_array({', '.join(entity_json(i).sql for i in items)})", T.JSON)


def map_literal(st: Translation, e: a.MapLiteral, scope: Scope) -> Typed:
    parts = []
    for key, value in e.items:
        parts.append(f"{st.params.add(key, 'text')}, {entity_json(expr(st, value, scope)).sql}")
    return Typed(f"jsonb_build_object({', '.join(parts)})", T.JSON)


def variable_ref(st: Translation, e: a.Variable, scope: Scope) -> Typed:
    return scope.lookup(e.name)


# -- access --------------------------------------------------------------------------------


def entity_properties(value: Typed) -> str:
    table = "node" if value.type is T.NODE else "edge"
    if value.alias is not None:
        return f"{value.alias}.properties"
    return f"(SELECT properties FROM {table} WHERE id = {value.sql})"


def property_text(st: Translation, e: a.Expr, scope: Scope) -> tuple[str, str] | None:
    """For `n.key` on a node or relationship: (the ->> text form, the -> jsonb form)."""
    if not isinstance(e, a.Property):
        return None
    subject = expr(st, e.subject, scope)
    if subject.type not in (T.NODE, T.REL):
        return None
    props = entity_properties(subject)
    key = st.params.key(e.key)
    return f"({props}->>{key})", f"({props}->{key})"


def property_access(st: Translation, e: a.Property, scope: Scope) -> Typed:
    subject = expr(st, e.subject, scope)
    types.refuse_property_of_scalar(subject)
    if subject.type in (T.NODE, T.REL):
        # A property stored as JSON null reads as missing: Cypher has no stored nulls.
        return Typed(f"nullif({entity_properties(subject)}->{st.params.key(e.key)}, 'null'::jsonb)", T.JSON)
    if subject.type is T.DATETIME:
        return ts.datetime_field(subject, e.key)
    if subject.type is T.DURATION:
        return ts.duration_field(subject, e.key)
    if subject.type is T.JSON:
        # A value may hold a node or relationship (`(list[1]).name`): hg_value_member reads its properties.
        return Typed(f"hg_value_member({subject.sql}, {st.params.key(e.key)})", T.JSON)
    raise UnsupportedCypher(f"property access on a {subject.type.value}")


def index_access(st: Translation, e: a.Index, scope: Scope) -> Typed:
    subject = expr(st, e.subject, scope)
    index = expr(st, e.index, scope)
    types.refuse_index_of_scalar(subject, index)
    if subject.type in (T.NODES, T.RELS, T.PATH) and index.type is T.JSON:
        element = T.NODE if subject.type is T.NODES else T.REL
        array = subject.sql
        if subject.type is T.PATH:
            raise UnsupportedCypher("indexing a path")
        i = f"(({index.sql})::numeric)::int"
        return Typed(f"({array})[CASE WHEN {i} < 0 THEN cardinality({array}) + {i} + 1 ELSE {i} + 1 END]",
                     element)
    if subject.type in (T.NODE, T.REL) and isinstance(e.index, a.Literal) and isinstance(e.index.value, str):
        return property_access(st, a.Property(e.subject, e.index.value), scope)
    if subject.type in (T.NODE, T.REL) and index.type is T.JSON:
        # `r[key]` with a computed key reads the entity's properties as a map.
        return Typed(f"hg_index({entity_properties(subject)}, {index.sql})", T.JSON)
    if is_split_part(e):
        # `split(u.name, '@')[0]`: the element of PostgreSQL's text array, without the JSON list of every part
        # that `hg_index` would read it from (a third of the time of "users of the same name in two domains").
        assert isinstance(e.subject, a.FunctionCall) and isinstance(e.index, a.Literal)
        texts = ", ".join(fn.text_of(expr(st, arg, scope)) for arg in e.subject.args)
        return Typed(f"to_jsonb((string_to_array({texts}))[{int(e.index.value) + 1}])", T.JSON)
    return Typed(f"hg_index({entity_json(subject).sql}, {as_json(index).sql})", T.JSON)


def is_split_part(e: a.Index) -> bool:
    """Whether `e` takes a part of a `split` at a position written as a non-negative integer (a negative one
    counts from the end, which a PostgreSQL array subscript does not; nor does it take one past 2^31)."""
    return (isinstance(e.subject, a.FunctionCall) and e.subject.name == "split" and len(e.subject.args) == 2
            and not e.subject.distinct and isinstance(e.index, a.Literal) and type(e.index.value) is int
            and 0 <= e.index.value < 2**31 - 1)


def slice_access(st: Translation, e: a.Slice, scope: Scope) -> Typed:
    subject = expr(st, e.subject, scope)
    start = json_sql(st, e.start, scope) if e.start is not None else "NULL::jsonb"
    end = json_sql(st, e.end, scope) if e.end is not None else "NULL::jsonb"
    if subject.type in (T.NODES, T.RELS):
        raise UnsupportedCypher("slicing a list of nodes or relationships")
    sliced = f"hg_slice({entity_json(subject).sql}, {start}, {end})"
    # A bound written but null (`list[..null]`) makes the slice null; hg_slice reads an absent bound as open.
    given = [bound for bound, written in ((start, e.start), (end, e.end)) if written is not None]
    if given:
        nulls = " OR ".join(f"coalesce({bound}, 'null'::jsonb) = 'null'::jsonb" for bound in given)
        sliced = f"(CASE WHEN {nulls} THEN NULL ELSE {sliced} END)"
    return Typed(sliced, T.JSON)


def has_labels(st: Translation, e: a.HasLabels, scope: Scope) -> Typed:
    subject = expr(st, e.subject, scope)
    if subject.type is T.REL:
        names = [n for group in e.labels for n in group]
        condition = rel_kind_condition(st, subject, tuple(names))
    elif subject.type is T.NODE:
        condition = label_condition(st, node_kind_ids(subject), e.labels)
    else:
        raise CypherSemanticError("label predicates apply to nodes")
    # A label no entity has yet is false, but of a missing (null) entity null, as any label of it.
    return Typed(condition if condition != "FALSE" else f"(CASE WHEN {subject.sql} IS NOT NULL THEN FALSE END)", T.BOOL)


def node_kind_ids(node: Typed) -> str:
    if node.alias is not None:
        return f"{node.alias}.kind_ids"
    return f"(SELECT kind_ids FROM node WHERE id = {node.sql})"


def label_condition(st: Translation, kind_ids: str, labels: tuple[tuple[str, ...], ...]) -> str:
    conditions = []
    required: list[int] = []
    for group in labels:
        ids = [st.kinds[name] for name in group if name in st.kinds]
        if not ids:
            return "FALSE"
        if len(group) == 1:
            required.append(ids[0])
        else:
            conditions.append(f"{kind_ids} && '{{{','.join(map(str, ids))}}}'::smallint[]")
    if required:
        conditions.insert(0, f"{kind_ids} @> '{{{','.join(map(str, required))}}}'::smallint[]")
    return " AND ".join(conditions) if conditions else "TRUE"


def rel_kind_condition(st: Translation, rel: Typed, types: tuple[str, ...]) -> str:
    ids = relationship_kind_ids(st.kinds, types)
    if not ids:
        return "FALSE"
    column = f"{rel.alias}.kind_id" if rel.alias else f"(SELECT kind_id FROM edge WHERE id = {rel.sql})"
    return f"{column} IN ({', '.join(map(str, ids))})"


def string_text(st: Translation, e: a.Expr, scope: Scope) -> str | None:
    """The SQL text of a value that is a string or null by its form (a string literal, what toLower() and the
    like return): compared as text, with no jsonb round trip per row (`toLower(n.name) CONTAINS toLower(word)`
    over every node and word)."""
    if isinstance(e, a.Literal) and isinstance(e.value, str):
        return st.params.add(e.value, "text")
    if isinstance(e, a.FunctionCall) and e.name in fn.STRING_FUNCTIONS and len(e.args) == 1 and not e.distinct:
        if (column := st.node_texts.get(e)) is not None:
            return column
        value = expr(st, e.args[0], scope)
        function = fn.STRING_FUNCTIONS[e.name]
        if (column := computed_per_element(st, value.sql, function)) is not None:
            return column
        return fn.string_call(function, st.texts.get(value.sql) or fn.text_of(value))
    return None


def computed_per_element(st: Translation, value: str, function: str) -> str | None:
    """The column of `function` of an UNWIND element computed once per element (translator.unwind), if any."""
    return st.text_functions.get(value, {}).get(function)
