"""Cypher functions and aggregates -> SQL."""

from __future__ import annotations

from collections.abc import Callable

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import CypherSemanticError, UnsupportedCypher
from houndgraph.graph.cypher.translate import expressions as ex
from houndgraph.graph.cypher.translate import timestamps as ts
from houndgraph.graph.cypher.translate import type_checks as types
from houndgraph.graph.cypher.translate.state import Translation
from houndgraph.graph.cypher.translate.values import NOT_CONSTANT, NULL_JSON, Scope, T, Typed, as_json, entity_json
from houndgraph.graph.cypher.validate import walk

# The longest list range() of constants may make: twenty times the rows a query may return (the TCK sums
# a million-and-one values).
MAX_RANGE_LENGTH = 2_000_000

# Compiles one function call from the call and its arguments, already compiled.
FunctionHandler = Callable[[Translation, a.FunctionCall, list[Typed]], Typed]

AGGREGATES = frozenset({"count", "collect", "min", "max", "sum", "avg"})

# Functions of one jsonb string argument: the SQL that computes them from `s` (the text value).
STRING_FUNCTIONS = {
    "tolower": "lower(s)", "toupper": "upper(s)", "trim": "btrim(s)", "ltrim": "ltrim(s)",
    "rtrim": "rtrim(s)", "reverse": "reverse(s)", "lower": "lower(s)", "upper": "upper(s)",
}
# Functions of string arguments only: their argument count and the SQL function computing them.
TEXT_FUNCTIONS = {"split": (2, "string_to_array"), "replace": (3, "replace")}
JSON_HELPERS = {
    "tointeger": "hg_to_integer", "tofloat": "hg_to_float", "toboolean": "hg_to_boolean",
    "tostring": "hg_to_string", "tointegerornull": "hg_to_integer", "tofloatornull": "hg_to_float",
    "tobooleanornull": "hg_to_boolean", "tostringornull": "hg_to_string",
}
NUMERIC_FUNCTIONS = {"abs": "abs", "ceil": "ceil", "floor": "floor", "round": "round", "sign": "sign",
                     "sqrt": "sqrt"}
# The functions whose value is of one type or null whatever their arguments: numbers, or strings (a relationship's
# type, an element id, a part of a string). ORDER BY sorts them by their value alone (projections._ordered_sql).
SCALAR_FUNCTIONS = frozenset({"count", "sum", "avg", "size", "length", "id", "tointeger", "tofloat", "tointegerornull",
                              "tofloatornull", *NUMERIC_FUNCTIONS, "tostring", "tostringornull",
                              *(name for name in STRING_FUNCTIONS if name != "reverse"), "type", "elementid",
                              "substring", "left", "right", "replace"})


def contains_aggregate(e: object) -> bool:
    for node in walk(e):
        if isinstance(node, a.CountStar):
            return True
        if isinstance(node, a.FunctionCall) and node.name in AGGREGATES:
            return True
        if isinstance(node, a.Subquery | a.PatternComprehension | a.ListComprehension | a.Quantifier):
            # Their own aggregates belong to them; do not look inside.
            continue
    return False


def count_star(st: Translation, e: a.CountStar, scope: Scope) -> Typed:
    if not st.aggregating:
        raise CypherSemanticError("count(*) can only be used in WITH or RETURN")
    return Typed("to_jsonb(count(*))", T.JSON)


def function_call(st: Translation, e: a.FunctionCall, scope: Scope) -> Typed:
    if e.name in AGGREGATES:
        return aggregate(st, e, scope)
    args = [ex.expr(st, arg, scope) for arg in e.args]
    handler = _FUNCTIONS.get(e.name)
    if handler is None:
        raise UnsupportedCypher(f"the function {e.name}()")
    return handler(st, e, args)


def _entity_id(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    value = one(args, e.name)
    if value.type not in (T.NODE, T.REL):
        raise CypherSemanticError(f"{e.name}() takes a node or a relationship")
    return Typed(f"to_jsonb(({value.sql}){'::text' if e.name == 'elementid' else ''})", T.JSON)


def _labels(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    node = one(args, e.name)
    if node == NULL_JSON:
        return NULL_JSON
    if node.type is T.JSON and node.constant is NOT_CONSTANT:  # a node taken from a list or map (`labels(list[0])`)
        return Typed(f"hg_value_labels({node.sql})", T.JSON)
    if node.type is not T.NODE:
        raise CypherSemanticError(f"Type mismatch: labels() expects a node, got a {node.type.value}")
    kind_ids = ex.node_kind_ids(node)
    return Typed(f"(CASE WHEN {node.sql} IS NOT NULL THEN (SELECT coalesce(jsonb_agg(k.name ORDER BY "
                 f"array_position({kind_ids}, k.id)), '[]'::jsonb) FROM kind AS k "
                 f"WHERE k.id = ANY({kind_ids})) END)", T.JSON)


def _type(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    rel = one(args, e.name)
    if rel == NULL_JSON:
        return NULL_JSON
    if rel.type is T.JSON and rel.constant is NOT_CONSTANT:  # a relationship taken from a list or map (`type(list[0])`)
        return Typed(f"hg_value_type({rel.sql})", T.JSON)
    if rel.type is not T.REL:
        raise CypherSemanticError(f"Type mismatch: type() expects a relationship, got a {rel.type.value}")
    column = f"{rel.alias}.kind_id" if rel.alias else f"(SELECT kind_id FROM edge WHERE id = {rel.sql})"
    return Typed(f"(SELECT to_jsonb(k.name) FROM kind AS k WHERE k.id = {column})", T.JSON)


def _end_node(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    rel = one(args, e.name)
    column = "start_id" if e.name == "startnode" else "end_id"
    source = f"{rel.alias}.{column}" if rel.alias else f"(SELECT {column} FROM edge WHERE id = {rel.sql})"
    return Typed(source, T.NODE)


def _nodes(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    return Typed(f"hg_path_nodes({_path(one(args, e.name))})", T.NODES)


def _relationships(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    return Typed(f"hg_path_edges({_path(one(args, e.name))})", T.RELS)


def _path(value: Typed) -> str:
    """A path argument's SQL: `nodes(null)` is null."""
    return "NULL::bigint[]" if value.type is T.JSON and value.constant is None else value.sql


def _length(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    value = one(args, e.name)
    if value.type is T.PATH:
        return Typed(f"to_jsonb((cardinality({value.sql}) - 1) / 2)", T.JSON)
    if value.type in (T.NODE, T.REL):
        raise CypherSemanticError(f"Type mismatch: length() expects a path, not a {value.type.value} "
                                  "(InvalidArgumentType)")
    return Typed(f"hg_size({as_json(value).sql})", T.JSON)


def _size(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    value = one(args, e.name)
    if value.type in (T.PATH, T.NODE, T.REL):
        raise CypherSemanticError(f"Type mismatch: size() expects a list or a string, not a {value.type.value} "
                                  "(InvalidArgumentType)")
    if value.type in (T.NODES, T.RELS):
        return Typed(f"to_jsonb(cardinality({value.sql}))", T.JSON)
    if value.type is T.PATHS:
        return Typed(f"to_jsonb(jsonb_array_length({value.sql}))", T.JSON)
    return Typed(f"hg_size({as_json(value).sql})", T.JSON)


def _head_or_last(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    value = one(args, e.name)
    if value.type in (T.NODES, T.RELS):
        element = T.NODE if value.type is T.NODES else T.REL
        index = "1" if e.name == "head" else f"cardinality({value.sql})"
        return Typed(f"({value.sql})[{index}]", element)
    position = "0" if e.name == "head" else "-1"
    return Typed(f"hg_index({as_json(value).sql}, '{position}'::jsonb)", T.JSON)


def _reverse(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    """reverse() of a string or of a list."""
    value = one(args, e.name)
    if value.type in (T.NODES, T.RELS):
        return Typed(f"ARRAY(SELECT x FROM unnest({value.sql}) WITH ORDINALITY AS u(x, i) ORDER BY i DESC)",
                     value.type)
    json = as_json(value).sql
    return Typed(f"(CASE jsonb_typeof({json}) WHEN 'string' THEN to_jsonb(reverse(({json}) #>> '{{}}')) "
                 f"WHEN 'array' THEN (SELECT coalesce(jsonb_agg(x ORDER BY i DESC), '[]'::jsonb) "
                 f"FROM jsonb_array_elements({json}) WITH ORDINALITY AS u(x, i)) END)", T.JSON)


def _tail(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    value = one(args, e.name)
    if value.type in (T.NODES, T.RELS):
        return Typed(f"({value.sql})[2:]", value.type)
    json = as_json(value).sql
    return Typed(f"(CASE WHEN jsonb_typeof({json}) = 'array' THEN hg_slice({json}, '1'::jsonb, NULL) END)", T.JSON)


def _rand(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    exactly(args, 0, e.name)
    return Typed("to_jsonb(random())", T.JSON)


def _coalesce(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    types = {arg.type for arg in args if arg.sql != NULL_JSON.sql}
    if len(types) == 1 and (kind := types.pop()) is not T.JSON:
        return Typed(f"coalesce({', '.join(arg.sql if arg.type is kind else 'NULL' for arg in args)})", kind)
    values = ", ".join(f"nullif({as_json(arg).sql}, 'null'::jsonb)" for arg in args)
    return Typed(f"coalesce({values})", T.JSON)


def _string_function(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    return Typed(f"to_jsonb({string_call(STRING_FUNCTIONS[e.name], text_of(one(args, e.name)))})", T.JSON)


def string_call(function: str, text: str) -> str:
    """A function of STRING_FUNCTIONS (`lower(s)`) applied to `text`."""
    return function.replace("(s)", f"({text})", 1)


# What the ...OrNull conversions convert; any other value is null to them, where the plain conversion raises
# Neo4j's InvalidArgumentValue (helpers.sql).
OR_NULL_ACCEPTS = {
    "tointegerornull": "jsonb_typeof(v) IN ('string', 'number', 'boolean')",
    "tofloatornull": "jsonb_typeof(v) IN ('string', 'number')",
    "tobooleanornull": "(jsonb_typeof(v) IN ('string', 'boolean') OR hg_is_int(v))",
    "tostringornull": "jsonb_typeof(v) IN ('string', 'number', 'boolean')",
}


def _json_helper(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    value = as_json(one(args, e.name)).sql
    if e.name in OR_NULL_ACCEPTS:
        accepts = OR_NULL_ACCEPTS[e.name].replace("(v)", f"({value})")
        return Typed(f"(CASE WHEN {accepts} THEN {JSON_HELPERS[e.name]}({value}) END)", T.JSON)
    return Typed(f"{JSON_HELPERS[e.name]}({value})", T.JSON)


def _numeric_function(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    value = as_json(one(args, e.name)).sql
    return Typed(f"hg_from_numeric({NUMERIC_FUNCTIONS[e.name]}(hg_numeric({value})))", T.JSON)


def _text_function(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    count, function = TEXT_FUNCTIONS[e.name]
    texts = ", ".join(text_of(arg) for arg in exactly(args, count, e.name))
    return Typed(f"to_jsonb({function}({texts}))", T.JSON)


def _substring(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    if len(args) not in (2, 3):
        raise CypherSemanticError("substring() takes two or three arguments")
    text = text_of(args[0])
    start = f"(({as_json(args[1]).sql})::numeric)::int + 1"
    if len(args) == 3:
        return Typed(f"to_jsonb(substr({text}, {start}, (({as_json(args[2]).sql})::numeric)::int))", T.JSON)
    return Typed(f"to_jsonb(substr({text}, {start}))", T.JSON)


def _left_or_right(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    text, count = exactly(args, 2, e.name)
    return Typed(f"to_jsonb({e.name}({text_of(text)}, (({as_json(count).sql})::numeric)::int))", T.JSON)


def _properties_source(value: Typed) -> str:
    if value.type in (T.NODE, T.REL):
        return ex.entity_properties(value)
    if value.type is T.JSON and value.constant is NOT_CONSTANT:  # may hold an entity (`keys(l[0])`)
        return f"hg_value_properties({value.sql})"
    return as_json(value).sql


def _keys(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    source = _properties_source(one(args, e.name))
    # keys(null) is null; jsonb_object_keys of null would give no rows, read as [].
    return Typed(f"(CASE WHEN {source} IS NOT NULL THEN (SELECT coalesce(jsonb_agg(k ORDER BY k), '[]'::jsonb) "
                 f"FROM jsonb_object_keys({source}) AS k) END)", T.JSON)


def _properties(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    value = one(args, e.name)
    if (kind := types.constant_kind(value.constant)) not in (None, "Null", "Map"):
        raise CypherSemanticError(f"Type mismatch: properties() expects a map, node or relationship, not {kind} "
                                  "(InvalidArgumentType)")
    return Typed(_properties_source(value), T.JSON)


def _exists(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    value = one(args, e.name)
    if value.type is T.BOOL:
        return value
    return Typed(f"(coalesce({as_json(value).sql}, 'null'::jsonb) <> 'null'::jsonb)", T.BOOL)


def _range(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    for arg in args:
        if (kind := types.constant_kind(arg.constant)) not in (None, "Integer"):
            raise CypherSemanticError(f"Type mismatch: range() takes integers, not {kind} (InvalidArgumentType)")
    bounds = [f"(({as_json(arg).sql})::numeric)::bigint" for arg in args]
    if len(bounds) not in (2, 3):
        raise CypherSemanticError("range() takes two or three arguments")
    _check_range_size(e.args)
    # Bounds read from the graph (`range(0, n.pwdlastset)`) are checked as the statement runs, before the list is
    # built: PostgreSQL would otherwise build billions of values until the request's deadline.
    lo, hi, step = (*bounds, "1")[:3]
    return Typed(f"(SELECT CASE WHEN r.step <> 0 AND (r.hi::numeric - r.lo) / r.step >= {MAX_RANGE_LENGTH} "
                 f"THEN hg_runtime_error('range() would hold more than {MAX_RANGE_LENGTH} values', to_jsonb(r.hi)) "
                 "ELSE (SELECT coalesce(jsonb_agg(g), '[]'::jsonb) FROM generate_series(r.lo, r.hi, r.step) AS g) END "
                 f"FROM (SELECT {lo} AS lo, {hi} AS hi, {step} AS step) AS r)", T.JSON)


def _check_range_size(args: tuple[a.Expr, ...]) -> None:
    """Refuses, before anything runs, a range() of constants longer than MAX_RANGE_LENGTH: PostgreSQL would
    otherwise build it whole (a gigabyte for `UNWIND range(1, 100000000)`) before any limit could apply."""
    numbers = [_constant_int(arg) for arg in args]
    if any(n is None for n in numbers):
        return
    start, end, step = (*numbers, 1)[:3]
    assert start is not None and end is not None and step is not None
    if step == 0:
        raise CypherSemanticError("range() step must not be zero")
    length = max(0, (end - start) // step + 1)
    if length > MAX_RANGE_LENGTH:
        raise CypherSemanticError(f"range() would hold {length} values; at most {MAX_RANGE_LENGTH} are allowed")


def _constant_int(e: a.Expr) -> int | None:
    if isinstance(e, a.Unary) and e.op in ("-", "+"):
        value = _constant_int(e.operand)
        return None if value is None else (-value if e.op == "-" else value)
    if isinstance(e, a.Literal) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return e.value
    return None


def one(args: list[Typed], name: str) -> Typed:
    return exactly(args, 1, name)[0]


def exactly(args: list[Typed], count: int, name: str) -> list[Typed]:
    if len(args) != count:
        raise CypherSemanticError(f"{name}() takes {count} argument{'s' if count != 1 else ''}")
    return args


def text_of(value: Typed) -> str:
    json = as_json(value).sql
    return f"(CASE WHEN jsonb_typeof({json}) = 'string' THEN ({json}) #>> '{{}}' END)"


# -- aggregates -----------------------------------------------------------------------------


def aggregate(st: Translation, e: a.FunctionCall, scope: Scope) -> Typed:
    if not st.aggregating:
        raise CypherSemanticError(f"{e.name}() can only be used in WITH or RETURN")
    if len(e.args) != 1:
        raise CypherSemanticError(f"{e.name}() takes one argument")
    if any(isinstance(node, a.FunctionCall) and node.name == "rand" for node in walk(e.args[0])):
        raise CypherSemanticError(f"Can't use non-deterministic (random) functions inside of aggregate functions: "
                                  f"{e.name}() (NonConstantExpression)")
    with st.within(aggregating=False):  # aggregates do not nest
        value = ex.expr(st, e.args[0], scope)
    distinct = "DISTINCT " if e.distinct else ""
    if e.name == "count":
        return Typed(f"to_jsonb(count({distinct}{non_null(value)}))", T.JSON)
    if e.name == "collect":
        if value.type in (T.NODE, T.REL):
            kind = T.NODES if value.type is T.NODE else T.RELS
            return Typed(f"coalesce(array_agg({distinct}{value.sql}) FILTER (WHERE {value.sql} IS NOT NULL), "
                         f"'{{}}'::bigint[])", kind)
        if value.type is T.PATH:
            return Typed(f"coalesce(jsonb_agg({distinct}to_jsonb({value.sql})) "
                         f"FILTER (WHERE {value.sql} IS NOT NULL)"
                         f", '[]'::jsonb)", T.PATHS)
        json = entity_json(value).sql  # `collect(nodes(p))`: lists of entities stay entities
        return Typed(f"coalesce(jsonb_agg({distinct}{json}) FILTER (WHERE coalesce({json}, 'null'::jsonb) <> "
                     f"'null'::jsonb), '[]'::jsonb)", T.JSON)
    if value.type in (T.NODE, T.REL, T.PATH, T.NODES, T.RELS, T.PATHS):
        raise UnsupportedCypher(f"{e.name}() of nodes, relationships or paths")
    if value.type in (T.DATETIME, T.DURATION) and e.name in ("min", "max"):
        return Typed(f"{e.name}({distinct}{value.sql})", value.type)
    json = as_json(value).sql
    if e.name in ("min", "max"):
        # jsonb has no min/max aggregate: hg_extreme (helpers.sql) keeps Cypher's order of values of any types.
        return Typed(f"hg_extreme({json}, {'true' if e.name == 'max' else 'false'})", T.JSON)
    number = f"hg_numeric({json})"  # NaN and the infinities included (helpers.sql)
    if e.name == "sum":
        return Typed(f"hg_from_numeric(coalesce(sum({distinct}{number}), 0))", T.JSON)
    return Typed(f"hg_float((avg({distinct}{number}))::float8)", T.JSON)


def non_null(value: Typed) -> str:
    if value.type is T.JSON:
        return f"nullif({value.sql}, 'null'::jsonb)"
    return value.sql


_FUNCTIONS: dict[str, FunctionHandler] = {
    "id": _entity_id, "elementid": _entity_id, "labels": _labels, "type": _type,
    "startnode": _end_node, "endnode": _end_node, "nodes": _nodes, "relationships": _relationships,
    "length": _length, "size": _size, "head": _head_or_last, "last": _head_or_last, "coalesce": _coalesce,
    **dict.fromkeys(STRING_FUNCTIONS, _string_function), **dict.fromkeys(JSON_HELPERS, _json_helper),
    **dict.fromkeys(NUMERIC_FUNCTIONS, _numeric_function), **dict.fromkeys(TEXT_FUNCTIONS, _text_function),
    "substring": _substring, "left": _left_or_right, "right": _left_or_right,
    "keys": _keys, "properties": _properties, "exists": _exists, "range": _range,
    "datetime": ts.datetime_call, "localdatetime": ts.datetime_call, "date": ts.datetime_call,
    "timestamp": ts.timestamp_call, "duration": ts.duration_call, "tail": _tail, "rand": _rand, "reverse": _reverse,
}
