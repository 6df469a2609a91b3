"""Cypher's operators -> SQL: boolean logic, comparison and equality, arithmetic, string and regular expression
predicates, list membership and CASE, with Cypher's null and type rules (the hg_* helpers of helpers.sql).

Property comparisons against literals take index-friendly forms: (properties->>'objectid') = $1 uses the unique
index, LIKE on (properties->>'name') the trigram index, a prefix or suffix of the object id its b-trees
(migration 0022).
"""

from __future__ import annotations

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import CypherSemanticError, UnsupportedCypher
from houndgraph.graph.cypher.translate import constants, lists
from houndgraph.graph.cypher.translate import expressions as ex
from houndgraph.graph.cypher.translate import functions as fn
from houndgraph.graph.cypher.translate import timestamps as ts
from houndgraph.graph.cypher.translate import type_checks as types
from houndgraph.graph.cypher.translate.regex import java_to_postgres
from houndgraph.graph.cypher.translate.state import Translation
from houndgraph.graph.cypher.translate.values import (
    Scope,
    T,
    Typed,
    as_json,
    entity_json,
)

COMPARISONS = {"=": "=", "<>": "<>", "<": "<", ">": ">", "<=": "<=", ">=": ">="}
# An ordering comparison as a test of hg_cmp's answer (-1, 0, 1; 2 for NaN, which is neither: helpers.sql).
ORDERED = {"<": "< 0", "<=": "<= 0", ">": "= 1", ">=": "IN (0, 1)"}
STRING_OPS = ("STARTS", "ENDS", "CONTAINS")
OBJECT_ID = "objectid"
# The functions whose value is a number or null, whatever their argument.
NUMBER_FUNCTIONS = frozenset({"tointeger", "tofloat", "tointegerornull", "tofloatornull"})
# The string operators between two SQL texts; null when either is null, as Cypher's.
TEXT_STRING_OPS = {"STARTS": "starts_with({left}, {right})", "ENDS": "(right({left}, char_length({right})) = {right})",
                   "CONTAINS": "(strpos({left}, {right}) > 0)"}


def like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def unary(st: Translation, e: a.Unary, scope: Scope) -> Typed:
    if e.op == "NOT":
        return Typed(f"(NOT {ex.pred(st, e.operand, scope)})", T.BOOL)
    return Typed(f"hg_neg({ex.json_sql(st, e.operand, scope)})", T.JSON)


def is_null(st: Translation, e: a.IsNull, scope: Scope) -> Typed:
    value = ex.expr(st, e.operand, scope)
    if value.type is T.JSON:
        test = f"coalesce({value.sql}, 'null'::jsonb) = 'null'::jsonb"
    else:
        test = f"({value.sql}) IS NULL"
    return Typed(f"(NOT ({test}))" if e.negated else f"({test})", T.BOOL)


def binary(st: Translation, e: a.Binary, scope: Scope) -> Typed:
    op = e.op
    if op in ("AND", "OR"):
        return Typed(f"({ex.pred(st, e.left, scope)} {op} {ex.pred(st, e.right, scope)})", T.BOOL)
    if op == "XOR":
        return Typed(f"(({ex.pred(st, e.left, scope)}) <> ({ex.pred(st, e.right, scope)}))", T.BOOL)
    if op in COMPARISONS:
        return comparison(st, e, scope)
    if op in STRING_OPS:
        return string_predicate(st, e, scope)
    if op == "=~":
        return regex(st, e, scope)
    if op == "IN":
        return membership(st, e, scope)
    left, right = constants.beside_sql_temporal(st, *(ex.expr(st, e.left, scope), ex.expr(st, e.right, scope)))
    sql_temporal = {left.type, right.type} & {T.DATETIME, T.DURATION}
    if sql_temporal and T.JSON not in (left.type, right.type):
        return ts.temporal_arithmetic(op, left, right)
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
    left, right = constants.beside_sql_temporal(st, *(ex.expr(st, e.left, scope), ex.expr(st, e.right, scope)))
    if left.type in (T.NODE, T.REL) or right.type in (T.NODE, T.REL):
        if any(isinstance(side, a.Literal) and side.value is None for side in (e.left, e.right)):
            return Typed("(NULL::boolean)", T.BOOL)  # `r <> null`: a node or relationship id is no jsonb
        if left.type != right.type and T.JSON not in (left.type, right.type):
            return Typed("FALSE", T.BOOL)
        if op not in ("=", "<>"):
            raise UnsupportedCypher("ordering comparisons of nodes or relationships")
        if T.JSON in (left.type, right.type):  # an entity beside a value that may hold one (`n = l[0]`)
            return Typed(f"({entity_json(left).sql} {op} {entity_json(right).sql})", T.BOOL)
        return Typed(f"({left.sql} {op} {right.sql})", T.BOOL)
    if left.type is right.type and left.type in (T.DATETIME, T.DURATION, T.BOOL, T.PATH, T.NODES, T.RELS):
        return Typed(f"(({left.sql}) {op} ({right.sql}))", T.BOOL)
    lj, rj = entity_json(left).sql, entity_json(right).sql  # lists of entities as lists of them, not of ids
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
    return Typed(f"(hg_cmp({lj}, {rj}) {ORDERED[op]})", T.BOOL)


def _number_by_form(e: a.Expr) -> bool:
    """Whether `e` is a number or null by its form: a number literal or what toInteger() and toFloat() return."""
    if isinstance(e, a.Literal):
        return type(e.value) in (int, float)
    return isinstance(e, a.FunctionCall) and e.name in NUMBER_FUNCTIONS and len(e.args) == 1 and not e.distinct


def _scalar_by_form(e: a.Expr) -> bool:
    """Whether `e` is a string or null by its form: a string function's result or a part of a split."""
    return (isinstance(e, a.FunctionCall) and e.name in fn.STRING_FUNCTIONS and len(e.args) == 1
            and not e.distinct) or (isinstance(e, a.Index) and ex.is_split_part(e))


def list_equality(lj: str, rj: str) -> str:
    """Cypher's `=` where either side may be a list or a map holding nulls (hg_equal, helpers.sql); two scalars
    compare as jsonb does, inline."""
    return f"(CASE WHEN jsonb_typeof({lj}) IN ('array', 'object') THEN hg_equal({lj}, {rj}) ELSE {lj} = {rj} END)"


def literal_equality(st: Translation, e: a.Binary, scope: Scope) -> str | None:
    """`n.key = 'text'` (either way round) as a text comparison an expression index can serve."""
    prop, lit = (e.left, e.right) if isinstance(e.right, a.Literal) else (e.right, e.left)
    if not isinstance(lit, a.Literal) or not isinstance(lit.value, str):
        return None
    forms = ex.property_text(st, prop, scope)
    if forms is None:
        return None
    text, json = forms
    return f"({text} = {st.params.add(lit.value, 'text')} AND jsonb_typeof{json} = 'string')"


def string_predicate(st: Translation, e: a.Binary, scope: Scope) -> Typed:
    if isinstance(e.right, a.Literal) and isinstance(e.right.value, str):
        forms = ex.property_text(st, e.left, scope)
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
    left, right = ex.string_text(st, e.left, scope), ex.string_text(st, e.right, scope)
    if left is not None and right is not None:
        return Typed(TEXT_STRING_OPS[e.op].format(left=left, right=right), T.BOOL)
    return Typed(f"hg_string_op('{e.op}', {ex.json_sql(st, e.left, scope)}, {ex.json_sql(st, e.right, scope)})", T.BOOL)


def regex(st: Translation, e: a.Binary, scope: Scope) -> Typed:
    if not (isinstance(e.right, a.Literal) and isinstance(e.right.value, str)):
        raise UnsupportedCypher("=~ with a pattern that is not a string literal")
    pattern, ignore_case = java_to_postgres(e.right.value)
    operator = "~*" if ignore_case else "~"
    forms = ex.property_text(st, e.left, scope)
    if forms is not None:
        text, json = forms
    else:
        value = ex.json_sql(st, e.left, scope)
        text, json = f"(CASE WHEN jsonb_typeof({value}) = 'string' THEN ({value}) #>> '{{}}' END)", f"({value})"
    return Typed(f"({text} {operator} {st.params.add(pattern, 'text')} AND jsonb_typeof{json} = 'string')",
                 T.BOOL)


def membership(st: Translation, e: a.Binary, scope: Scope) -> Typed:
    right_ast = e.right
    if (kind := types.literal_kind(right_ast)) not in (None, "List", "Null"):
        raise CypherSemanticError(f"Type mismatch: IN expects a list, not {kind} (InvalidArgumentType)")
    if isinstance(right_ast, a.ListLiteral) and all(
            isinstance(i, a.Literal) and isinstance(i.value, str) for i in right_ast.items):
        forms = ex.property_text(st, e.left, scope)
        if forms is not None:
            text, json = forms
            values = [i.value for i in right_ast.items]  # type: ignore[attr-defined]
            return Typed(f"({text} = ANY({st.params.add(values, 'text[]')}) AND jsonb_typeof{json} = 'string')",
                         T.BOOL)
    if (isinstance(right_ast, a.FunctionCall) and right_ast.name == "labels" and isinstance(e.left, a.Literal)
            and isinstance(e.left.value, str)):
        node = ex.expr(st, right_ast.args[0], scope)
        return Typed(ex.label_condition(st, ex.node_kind_ids(node), ((e.left.value,),)), T.BOOL)
    left, right = ex.expr(st, e.left, scope), ex.expr(st, e.right, scope)
    if right.type in (T.NODES, T.RELS):
        if left.type not in (T.NODE, T.REL):
            return Typed("FALSE", T.BOOL)
        return Typed(f"({left.sql} = ANY({right.sql}))", T.BOOL)
    if right.type is T.PATHS:
        return Typed(f"({right.sql} @> jsonb_build_array(to_jsonb({left.sql})))", T.BOOL)
    if isinstance(e.left, a.ListLiteral | a.MapLiteral):
        return Typed(lists.list_membership(entity_json(left).sql, entity_json(right).sql), T.BOOL)
    return Typed(f"hg_in({entity_json(left).sql}, {entity_json(right).sql})", T.BOOL)


# -- conditionals ----------------------------------------------------------------------------


def case(st: Translation, e: a.Case, scope: Scope) -> Typed:
    results = [ex.expr(st, then, scope) for _, then in e.whens]
    default = ex.expr(st, e.default, scope) if e.default is not None else None
    kinds = {r.type for r in results} | ({default.type} if default is not None and default.sql != "NULL::jsonb"
                                         else set())
    uniform = kinds.pop() if len(kinds) == 1 else T.JSON

    def shape(value: Typed) -> str:
        return value.sql if value.type is uniform else as_json(value).sql

    parts = ["CASE"]
    subject = ex.json_sql(st, e.subject, scope) if e.subject is not None else None
    for (when, _), result in zip(e.whens, results, strict=True):
        condition = f"{subject} = {ex.json_sql(st, when, scope)}" if subject is not None else ex.pred(st, when, scope)
        parts.append(f"WHEN {condition} THEN {shape(result)}")
    if default is not None:
        parts.append(f"ELSE {shape(default) if default.sql != 'NULL::jsonb' else 'NULL'}")
    parts.append("END")
    return Typed(f"({' '.join(parts)})", uniform)
