"""Cypher expressions -> SQL expressions, with Cypher's null and type rules.

Scalars travel as jsonb; the helpers of `graph/cypher/helpers.sql` (hg_*) give operators Cypher's meaning.
Property comparisons against literals take index-friendly forms: (properties->>'objectid') = $1
uses the unique index, LIKE on (properties->>'name') the trigram index, a prefix or suffix of the object id
its b-trees (migration 0022).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import CypherSemanticError, UnsupportedCypher
from houndgraph.graph.cypher.translate import constants, lists
from houndgraph.graph.cypher.translate import functions as fn
from houndgraph.graph.cypher.translate import subqueries as sq
from houndgraph.graph.cypher.translate import type_checks as types
from houndgraph.graph.cypher.translate.regex import java_to_postgres
from houndgraph.graph.cypher.translate.state import Translation
from houndgraph.graph.cypher.translate.values import (
    NULL_JSON,
    Scope,
    T,
    Typed,
    as_bool,
    as_json,
    relationship_kind_ids,
)
from houndgraph.graph.cypher.validate import walk

# Compiles one kind of expression node (the node's own class as its second argument).
Handler = Callable[[Translation, Any, Scope], Typed]

COMPARISONS = {"=": "=", "<>": "<>", "<": "<", ">": ">", "<=": "<=", ">=": ">="}
STRING_OPS = ("STARTS", "ENDS", "CONTAINS")
OBJECT_ID = "objectid"
# The functions whose value is a number or null, whatever their argument.
NUMBER_FUNCTIONS = frozenset({"tointeger", "tofloat", "tointegerornull", "tofloatornull"})
# The string operators between two SQL texts; null when either is null, as Cypher's.
TEXT_STRING_OPS = {"STARTS": "starts_with({left}, {right})", "ENDS": "(right({left}, char_length({right})) = {right})",
                   "CONTAINS": "(strpos({left}, {right}) > 0)"}


def like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


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
        a.Unary: unary, a.IsNull: is_null, a.Binary: binary, a.Case: case,
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
    if any(i.type in (T.NODE, T.REL, T.PATH) for i in items):
        raise UnsupportedCypher("a list mixing graph entities and other values")
    return Typed(f"jsonb_build_array({', '.join(as_json(i).sql for i in items)})", T.JSON)


def map_literal(st: Translation, e: a.MapLiteral, scope: Scope) -> Typed:
    parts = []
    for key, value in e.items:
        typed = expr(st, value, scope)
        if typed.type in (T.NODE, T.REL, T.PATH, T.NODES, T.RELS, T.PATHS):
            raise UnsupportedCypher("a node, relationship or path inside a map")
        parts.append(f"{st.params.add(key, 'text')}, {as_json(typed).sql}")
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
        return fn.datetime_field(subject, e.key)
    if subject.type is T.DURATION:
        return fn.duration_field(subject, e.key)
    if subject.type is T.JSON:
        return Typed(f"hg_member({subject.sql}, {st.params.key(e.key)})", T.JSON)
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
    if _split_part(e):
        # `split(u.name, '@')[0]`: the element of PostgreSQL's text array, without the JSON list of every part
        # that `hg_index` would read it from (a third of the time of "users of the same name in two domains").
        assert isinstance(e.subject, a.FunctionCall) and isinstance(e.index, a.Literal)
        texts = ", ".join(fn.text_of(expr(st, arg, scope)) for arg in e.subject.args)
        return Typed(f"to_jsonb((string_to_array({texts}))[{int(e.index.value) + 1}])", T.JSON)
    return Typed(f"hg_index({as_json(subject).sql}, {as_json(index).sql})", T.JSON)


def _split_part(e: a.Index) -> bool:
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
    sliced = f"hg_slice({as_json(subject).sql}, {start}, {end})"
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


# -- operators -----------------------------------------------------------------------------


def unary(st: Translation, e: a.Unary, scope: Scope) -> Typed:
    if e.op == "NOT":
        return Typed(f"(NOT {pred(st, e.operand, scope)})", T.BOOL)
    return Typed(f"hg_neg({json_sql(st, e.operand, scope)})", T.JSON)


def is_null(st: Translation, e: a.IsNull, scope: Scope) -> Typed:
    value = expr(st, e.operand, scope)
    if value.type is T.JSON:
        test = f"coalesce({value.sql}, 'null'::jsonb) = 'null'::jsonb"
    else:
        test = f"({value.sql}) IS NULL"
    return Typed(f"(NOT ({test}))" if e.negated else f"({test})", T.BOOL)


def binary(st: Translation, e: a.Binary, scope: Scope) -> Typed:
    op = e.op
    if op in ("AND", "OR"):
        return Typed(f"({pred(st, e.left, scope)} {op} {pred(st, e.right, scope)})", T.BOOL)
    if op == "XOR":
        return Typed(f"(({pred(st, e.left, scope)}) <> ({pred(st, e.right, scope)}))", T.BOOL)
    if op in COMPARISONS:
        return comparison(st, e, scope)
    if op in STRING_OPS:
        return string_predicate(st, e, scope)
    if op == "=~":
        return regex(st, e, scope)
    if op == "IN":
        return membership(st, e, scope)
    left, right = constants.beside_sql_temporal(st, *(expr(st, e.left, scope), expr(st, e.right, scope)))
    sql_temporal = {left.type, right.type} & {T.DATETIME, T.DURATION}
    if sql_temporal and T.JSON not in (left.type, right.type):
        return fn.temporal_arithmetic(op, left, right)
    # Beside a value of the rows (a stored duration), a timestamp or interval becomes a temporal object:
    # hg_add and hg_arith compute on those (temporal/stored.sql).
    if op == "+":
        return Typed(f"hg_add({as_json(left).sql}, {as_json(right).sql})", T.JSON)
    # '%' would read as a placeholder to the driver: the helper names it `mod`.
    name = "mod" if op == "%" else op
    return Typed(f"hg_arith('{name}', {as_json(left).sql}, {as_json(right).sql})", T.JSON)


def comparison(st: Translation, e: a.Binary, scope: Scope) -> Typed:
    op = COMPARISONS[e.op]
    if op in ("=", "<>"):
        fast = literal_equality(st, e, scope)
        if fast is not None:
            return Typed(fast if op == "=" else f"(NOT {fast})", T.BOOL)
    left, right = constants.beside_sql_temporal(st, *(expr(st, e.left, scope), expr(st, e.right, scope)))
    if left.type in (T.NODE, T.REL) or right.type in (T.NODE, T.REL):
        if left.type != right.type and T.JSON not in (left.type, right.type):
            return Typed("FALSE", T.BOOL)
        if op not in ("=", "<>"):
            raise UnsupportedCypher("ordering comparisons of nodes or relationships")
        return Typed(f"({as_json(left).sql if left.type is T.JSON else left.sql} {op} "
                     f"{as_json(right).sql if right.type is T.JSON else right.sql})", T.BOOL)
    if left.type is right.type and left.type in (T.DATETIME, T.DURATION, T.BOOL, T.PATH, T.NODES, T.RELS):
        return Typed(f"(({left.sql}) {op} ({right.sql}))", T.BOOL)
    lj, rj = as_json(left).sql, as_json(right).sql
    if op in ("=", "<>"):
        # With a side that is never a list or a map, Cypher's `=` is jsonb's: `split(u1.name, '@')[0] = ...`
        # compares two strings once per pair, not through the list and map cases, each reading both sides again.
        scalar = any(isinstance(side, a.Literal) or _scalar_by_form(side) for side in (e.left, e.right))
        equal = f"({lj} = {rj})" if scalar else list_equality(lj, rj)
        return Typed(equal if op == "=" else f"(NOT {equal})", T.BOOL)
    if _number_by_form(e.left) and _number_by_form(e.right):
        # Two numbers (or nulls) by their form, `toInteger(split(u.objectid, '-')[7]) >= 1000`: hg_cmp orders them
        # as jsonb does, and a helper whose argument is computed is a function call per row, never inlined.
        return Typed(f"({lj} {op} {rj})", T.BOOL)
    return Typed(f"(hg_cmp({lj}, {rj}) {op} 0)", T.BOOL)


def _number_by_form(e: a.Expr) -> bool:
    """Whether `e` is a number or null by its form: a number literal or what toInteger() and toFloat() return."""
    if isinstance(e, a.Literal):
        return type(e.value) in (int, float)
    return isinstance(e, a.FunctionCall) and e.name in NUMBER_FUNCTIONS and len(e.args) == 1 and not e.distinct


def _scalar_by_form(e: a.Expr) -> bool:
    """Whether `e` is a string or null by its form: a string function's result or a part of a split."""
    return (isinstance(e, a.FunctionCall) and e.name in fn.STRING_FUNCTIONS and len(e.args) == 1
            and not e.distinct) or (isinstance(e, a.Index) and _split_part(e))


def list_equality(lj: str, rj: str) -> str:
    """Cypher's `=` where lists and maps may hold nulls: lists of different sizes (maps of different keys)
    differ; otherwise an unequal pair of elements decides false, else a null element makes the answer null
    (jsonb's own `=` says [1, null] = [1, null] is true)."""
    null_pair = "le.v = 'null'::jsonb OR re.v = 'null'::jsonb"
    verdict = (f"CASE WHEN bool_or(le.v <> re.v AND NOT ({null_pair})) THEN FALSE WHEN bool_or({null_pair}) "
               "THEN NULL ELSE TRUE END")
    lists = (f"jsonb_array_elements({lj}) WITH ORDINALITY AS le(v, i) "
             f"JOIN jsonb_array_elements({rj}) WITH ORDINALITY AS re(v, i) ON le.i = re.i")
    maps = f"jsonb_each({lj}) AS le(k, v) JOIN jsonb_each({rj}) AS re(k, v) ON le.k = re.k"
    same_keys = (f"(SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys({lj}) AS k) IS NOT DISTINCT FROM "
                 f"(SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys({rj}) AS k)")
    return (f"(CASE WHEN jsonb_typeof({lj}) = 'object' AND {lj} ? '~t' THEN hg_temporal_equal({lj}, {rj}) "
            f"WHEN jsonb_typeof({lj}) = 'array' AND jsonb_typeof({rj}) = 'array' THEN "
            f"CASE WHEN jsonb_array_length({lj}) <> jsonb_array_length({rj}) THEN FALSE "
            f"ELSE (SELECT {verdict} FROM {lists}) END "
            f"WHEN jsonb_typeof({lj}) = 'object' AND jsonb_typeof({rj}) = 'object' THEN "
            f"CASE WHEN NOT {same_keys} THEN FALSE ELSE (SELECT {verdict} FROM {maps}) END "
            f"ELSE {lj} = {rj} END)")


def literal_equality(st: Translation, e: a.Binary, scope: Scope) -> str | None:
    """`n.key = 'text'` (either way round) as a text comparison an expression index can serve."""
    prop, lit = (e.left, e.right) if isinstance(e.right, a.Literal) else (e.right, e.left)
    if not isinstance(lit, a.Literal) or not isinstance(lit.value, str):
        return None
    forms = property_text(st, prop, scope)
    if forms is None:
        return None
    text, json = forms
    return f"({text} = {st.params.add(lit.value, 'text')} AND jsonb_typeof{json} = 'string')"


def string_predicate(st: Translation, e: a.Binary, scope: Scope) -> Typed:
    if isinstance(e.right, a.Literal) and isinstance(e.right.value, str):
        forms = property_text(st, e.left, scope)
        if forms is not None:
            text, json = forms
            if e.op == "ENDS" and isinstance(e.left, a.Property) and e.left.key == OBJECT_ID:
                # A suffix of the object id is a prefix of its reverse, which an index serves (migration 0022).
                text, pattern = f"reverse({text})", f"{like_escape(e.right.value[::-1])}%"
            else:
                escaped = like_escape(e.right.value)
                pattern = {"STARTS": f"{escaped}%", "ENDS": f"%{escaped}", "CONTAINS": f"%{escaped}%"}[e.op]
            return Typed(f"({text} LIKE {st.params.add(pattern, 'text')} AND jsonb_typeof{json} = 'string')",
                         T.BOOL)
    left, right = string_text(st, e.left, scope), string_text(st, e.right, scope)
    if left is not None and right is not None:
        return Typed(TEXT_STRING_OPS[e.op].format(left=left, right=right), T.BOOL)
    return Typed(f"hg_string_op('{e.op}', {json_sql(st, e.left, scope)}, {json_sql(st, e.right, scope)})", T.BOOL)


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


def regex(st: Translation, e: a.Binary, scope: Scope) -> Typed:
    if not (isinstance(e.right, a.Literal) and isinstance(e.right.value, str)):
        raise UnsupportedCypher("=~ with a pattern that is not a string literal")
    pattern, ignore_case = java_to_postgres(e.right.value)
    operator = "~*" if ignore_case else "~"
    forms = property_text(st, e.left, scope)
    if forms is not None:
        text, json = forms
    else:
        value = json_sql(st, e.left, scope)
        text, json = f"(CASE WHEN jsonb_typeof({value}) = 'string' THEN ({value}) #>> '{{}}' END)", f"({value})"
    return Typed(f"({text} {operator} {st.params.add(pattern, 'text')} AND jsonb_typeof{json} = 'string')",
                 T.BOOL)


def membership(st: Translation, e: a.Binary, scope: Scope) -> Typed:
    right_ast = e.right
    if (kind := types.literal_kind(right_ast)) not in (None, "List", "Null"):
        raise CypherSemanticError(f"Type mismatch: IN expects a list, not {kind} (InvalidArgumentType)")
    if isinstance(right_ast, a.ListLiteral) and all(
            isinstance(i, a.Literal) and isinstance(i.value, str) for i in right_ast.items):
        forms = property_text(st, e.left, scope)
        if forms is not None:
            text, json = forms
            values = [i.value for i in right_ast.items]  # type: ignore[attr-defined]
            return Typed(f"({text} = ANY({st.params.add(values, 'text[]')}) AND jsonb_typeof{json} = 'string')",
                         T.BOOL)
    if (isinstance(right_ast, a.FunctionCall) and right_ast.name == "labels" and isinstance(e.left, a.Literal)
            and isinstance(e.left.value, str)):
        node = expr(st, right_ast.args[0], scope)
        return Typed(label_condition(st, node_kind_ids(node), ((e.left.value,),)), T.BOOL)
    left, right = expr(st, e.left, scope), expr(st, e.right, scope)
    if right.type in (T.NODES, T.RELS):
        if left.type not in (T.NODE, T.REL):
            return Typed("FALSE", T.BOOL)
        return Typed(f"({left.sql} = ANY({right.sql}))", T.BOOL)
    if right.type is T.PATHS:
        return Typed(f"({right.sql} @> jsonb_build_array(to_jsonb({left.sql})))", T.BOOL)
    if isinstance(e.left, a.ListLiteral | a.MapLiteral):
        return Typed(lists.list_membership(as_json(left).sql, as_json(right).sql), T.BOOL)
    return Typed(f"hg_in({as_json(left).sql}, {as_json(right).sql})", T.BOOL)


# -- conditionals ----------------------------------------------------------------------------


def case(st: Translation, e: a.Case, scope: Scope) -> Typed:
    results = [expr(st, then, scope) for _, then in e.whens]
    default = expr(st, e.default, scope) if e.default is not None else None
    kinds = {r.type for r in results} | ({default.type} if default is not None and default.sql != "NULL::jsonb"
                                         else set())
    uniform = kinds.pop() if len(kinds) == 1 else T.JSON

    def shape(value: Typed) -> str:
        return value.sql if value.type is uniform else as_json(value).sql

    parts = ["CASE"]
    subject = json_sql(st, e.subject, scope) if e.subject is not None else None
    for (when, _), result in zip(e.whens, results, strict=True):
        condition = f"{subject} = {json_sql(st, when, scope)}" if subject is not None else pred(st, when, scope)
        parts.append(f"WHEN {condition} THEN {shape(result)}")
    if default is not None:
        parts.append(f"ELSE {shape(default) if default.sql != 'NULL::jsonb' else 'NULL'}")
    parts.append("END")
    return Typed(f"({' '.join(parts)})", uniform)
