"""Cypher functions and aggregates -> SQL."""

from __future__ import annotations

from typing import TYPE_CHECKING

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import CypherSemanticError, UnsupportedCypher
from houndgraph.graph.cypher.translate.values import NULL_JSON, T, Typed, as_json

if TYPE_CHECKING:
    from houndgraph.graph.cypher.translate.translator import Translator
    from houndgraph.graph.cypher.translate.values import Scope

AGGREGATES = frozenset({"count", "collect", "min", "max", "sum", "avg"})

# Functions of one jsonb string argument: the SQL that computes them from `s` (the text value).
STRING_FUNCTIONS = {
    "tolower": "lower(s)", "toupper": "upper(s)", "trim": "btrim(s)", "ltrim": "ltrim(s)",
    "rtrim": "rtrim(s)", "reverse": "reverse(s)", "lower": "lower(s)", "upper": "upper(s)",
}
JSON_HELPERS = {
    "tointeger": "hg_to_integer", "tofloat": "hg_to_float", "toboolean": "hg_to_boolean",
    "tostring": "hg_to_string", "tointegerornull": "hg_to_integer", "tofloatornull": "hg_to_float",
    "tobooleanornull": "hg_to_boolean", "tostringornull": "hg_to_string",
}
NUMERIC_FUNCTIONS = {"abs": "abs", "ceil": "ceil", "floor": "floor", "round": "round", "sign": "sign",
                     "sqrt": "sqrt"}
DURATION_UNITS = {"years": "years", "months": "months", "weeks": "weeks", "days": "days", "hours": "hours",
                  "minutes": "mins", "seconds": "secs"}


def contains_aggregate(e: object) -> bool:
    from houndgraph.graph.cypher.validate import walk

    for node in walk(e):
        if isinstance(node, a.CountStar):
            return True
        if isinstance(node, a.FunctionCall) and node.name in AGGREGATES:
            return True
        if isinstance(node, a.Subquery | a.PatternComprehension | a.ListComprehension | a.Quantifier):
            # Their own aggregates belong to them; do not look inside.
            continue
    return False


class FunctionCompiler:
    """Mixed into Translator."""

    def _CountStar(self: Translator, e: a.CountStar, scope: Scope) -> Typed:  # noqa: N802
        if not self.aggregating:
            raise CypherSemanticError("count(*) can only be used in WITH or RETURN")
        return Typed("to_jsonb(count(*))", T.JSON)

    def _FunctionCall(self: Translator, e: a.FunctionCall, scope: Scope) -> Typed:  # noqa: N802
        name = e.name
        if name in AGGREGATES:
            return self.aggregate(e, scope)
        args = [self.expr(arg, scope) for arg in e.args]
        if name in ("id", "elementid"):
            value = self.one(args, name)
            if value.type not in (T.NODE, T.REL):
                raise CypherSemanticError(f"{name}() takes a node or a relationship")
            return Typed(f"to_jsonb(({value.sql}){'::text' if name == 'elementid' else ''})", T.JSON)
        if name == "labels":
            node = self.one(args, name)
            kind_ids = self.node_kind_ids(node)
            return Typed(f"(CASE WHEN {node.sql} IS NOT NULL THEN (SELECT coalesce(jsonb_agg(k.name ORDER BY "
                         f"array_position({kind_ids}, k.id)), '[]'::jsonb) FROM kind AS k "
                         f"WHERE k.id = ANY({kind_ids})) END)", T.JSON)
        if name == "type":
            rel = self.one(args, name)
            column = f"{rel.alias}.kind_id" if rel.alias else f"(SELECT kind_id FROM edge WHERE id = {rel.sql})"
            return Typed(f"(SELECT to_jsonb(k.name) FROM kind AS k WHERE k.id = {column})", T.JSON)
        if name in ("startnode", "endnode"):
            rel = self.one(args, name)
            column = "start_id" if name == "startnode" else "end_id"
            source = f"{rel.alias}.{column}" if rel.alias else f"(SELECT {column} FROM edge WHERE id = {rel.sql})"
            return Typed(source, T.NODE)
        if name == "nodes":
            return Typed(f"hg_path_nodes({self.one(args, name).sql})", T.NODES)
        if name == "relationships":
            return Typed(f"hg_path_edges({self.one(args, name).sql})", T.RELS)
        if name == "length":
            value = self.one(args, name)
            if value.type is T.PATH:
                return Typed(f"to_jsonb((cardinality({value.sql}) - 1) / 2)", T.JSON)
            return Typed(f"hg_size({as_json(value).sql})", T.JSON)
        if name == "size":
            value = self.one(args, name)
            if value.type in (T.NODES, T.RELS):
                return Typed(f"to_jsonb(cardinality({value.sql}))", T.JSON)
            if value.type is T.PATHS:
                return Typed(f"to_jsonb(jsonb_array_length({value.sql}))", T.JSON)
            return Typed(f"hg_size({as_json(value).sql})", T.JSON)
        if name in ("head", "last"):
            value = self.one(args, name)
            if value.type in (T.NODES, T.RELS):
                element = T.NODE if value.type is T.NODES else T.REL
                index = "1" if name == "head" else f"cardinality({value.sql})"
                return Typed(f"({value.sql})[{index}]", element)
            position = "0" if name == "head" else "-1"
            return Typed(f"hg_index({as_json(value).sql}, '{position}'::jsonb)", T.JSON)
        if name == "coalesce":
            types = {arg.type for arg in args if arg.sql != NULL_JSON.sql}
            if len(types) == 1 and (kind := types.pop()) is not T.JSON:
                return Typed(f"coalesce({', '.join(arg.sql if arg.type is kind else 'NULL' for arg in args)})", kind)
            values = ", ".join(f"nullif({as_json(arg).sql}, 'null'::jsonb)" for arg in args)
            return Typed(f"coalesce({values})", T.JSON)
        if name in STRING_FUNCTIONS:
            text = self.text_of(self.one(args, name))
            return Typed(f"to_jsonb({STRING_FUNCTIONS[name].replace('s', text, 1)})", T.JSON)
        if name in JSON_HELPERS:
            return Typed(f"{JSON_HELPERS[name]}({as_json(self.one(args, name)).sql})", T.JSON)
        if name in NUMERIC_FUNCTIONS:
            value = as_json(self.one(args, name)).sql
            return Typed(f"(CASE WHEN jsonb_typeof({value}) = 'number' THEN to_jsonb({NUMERIC_FUNCTIONS[name]}"
                         f"(({value})::numeric)) END)", T.JSON)
        if name == "split":
            text, sep = (self.text_of(arg) for arg in self.exactly(args, 2, name))
            return Typed(f"to_jsonb(string_to_array({text}, {sep}))", T.JSON)
        if name == "replace":
            text, old, new = (self.text_of(arg) for arg in self.exactly(args, 3, name))
            return Typed(f"to_jsonb(replace({text}, {old}, {new}))", T.JSON)
        if name == "substring":
            if len(args) not in (2, 3):
                raise CypherSemanticError("substring() takes two or three arguments")
            text = self.text_of(args[0])
            start = f"(({as_json(args[1]).sql})::numeric)::int + 1"
            if len(args) == 3:
                return Typed(f"to_jsonb(substr({text}, {start}, (({as_json(args[2]).sql})::numeric)::int))", T.JSON)
            return Typed(f"to_jsonb(substr({text}, {start}))", T.JSON)
        if name in ("left", "right"):
            text, count = self.exactly(args, 2, name)
            return Typed(f"to_jsonb({name}({self.text_of(text)}, (({as_json(count).sql})::numeric)::int))", T.JSON)
        if name == "keys":
            value = self.one(args, name)
            source = self.entity_properties(value) if value.type in (T.NODE, T.REL) else as_json(value).sql
            return Typed(f"(SELECT coalesce(jsonb_agg(k ORDER BY k), '[]'::jsonb) "
                         f"FROM jsonb_object_keys({source}) AS k)",
                         T.JSON)
        if name == "properties":
            value = self.one(args, name)
            return Typed(self.entity_properties(value) if value.type in (T.NODE, T.REL) else as_json(value).sql,
                         T.JSON)
        if name == "exists":
            value = self.one(args, name)
            if value.type is T.BOOL:
                return value
            return Typed(f"(coalesce({as_json(value).sql}, 'null'::jsonb) <> 'null'::jsonb)", T.BOOL)
        if name == "range":
            bounds = [f"(({as_json(arg).sql})::numeric)::bigint" for arg in args]
            if len(bounds) not in (2, 3):
                raise CypherSemanticError("range() takes two or three arguments")
            return Typed(f"(SELECT coalesce(jsonb_agg(g), '[]'::jsonb) FROM generate_series({', '.join(bounds)}) AS g)",
                         T.JSON)
        if name in ("datetime", "localdatetime", "date"):
            return self.datetime(args)
        if name == "timestamp":
            return Typed("to_jsonb((extract(epoch FROM statement_timestamp()) * 1000)::bigint)", T.JSON)
        if name == "duration":
            return self.duration(e, args)
        raise UnsupportedCypher(f"the function {name}()")

    def one(self, args: list[Typed], name: str) -> Typed:
        return self.exactly(args, 1, name)[0]

    @staticmethod
    def exactly(args: list[Typed], count: int, name: str) -> list[Typed]:
        if len(args) != count:
            raise CypherSemanticError(f"{name}() takes {count} argument{'s' if count > 1 else ''}")
        return args

    @staticmethod
    def text_of(value: Typed) -> str:
        json = as_json(value).sql
        return f"(CASE WHEN jsonb_typeof({json}) = 'string' THEN ({json}) #>> '{{}}' END)"

    # -- aggregates -----------------------------------------------------------------------------

    def aggregate(self: Translator, e: a.FunctionCall, scope: Scope) -> Typed:
        if not self.aggregating:
            raise CypherSemanticError(f"{e.name}() can only be used in WITH or RETURN")
        if len(e.args) != 1:
            raise CypherSemanticError(f"{e.name}() takes one argument")
        self.aggregating = False  # aggregates do not nest
        try:
            value = self.expr(e.args[0], scope)
        finally:
            self.aggregating = True
        distinct = "DISTINCT " if e.distinct else ""
        if e.name == "count":
            return Typed(f"to_jsonb(count({distinct}{self.non_null(value)}))", T.JSON)
        if e.name == "collect":
            if value.type in (T.NODE, T.REL):
                kind = T.NODES if value.type is T.NODE else T.RELS
                return Typed(f"coalesce(array_agg({distinct}{value.sql}) FILTER (WHERE {value.sql} IS NOT NULL), "
                             f"'{{}}'::bigint[])", kind)
            if value.type is T.PATH:
                return Typed(f"coalesce(jsonb_agg({distinct}to_jsonb({value.sql})) "
                             f"FILTER (WHERE {value.sql} IS NOT NULL)"
                             f", '[]'::jsonb)", T.PATHS)
            json = as_json(value).sql
            return Typed(f"coalesce(jsonb_agg({distinct}{json}) FILTER (WHERE coalesce({json}, 'null'::jsonb) <> "
                         f"'null'::jsonb), '[]'::jsonb)", T.JSON)
        if value.type in (T.NODE, T.REL, T.PATH, T.NODES, T.RELS, T.PATHS):
            raise UnsupportedCypher(f"{e.name}() of nodes, relationships or paths")
        if value.type in (T.DATETIME, T.DURATION) and e.name in ("min", "max"):
            return Typed(f"{e.name}({distinct}{value.sql})", value.type)
        json = as_json(value).sql
        if e.name in ("min", "max"):
            order = "" if e.name == "min" else " DESC"
            # jsonb has no min/max aggregate; its ordering sorts numbers numerically and strings as text.
            return Typed(f"(array_agg({json} ORDER BY {json}{order}) FILTER (WHERE jsonb_typeof({json}) IN "
                         f"('number', 'string', 'boolean')))[1]", T.JSON)
        number = f"(CASE WHEN jsonb_typeof({json}) = 'number' THEN ({json})::numeric END)"
        if e.name == "sum":
            return Typed(f"to_jsonb(coalesce(sum({distinct}{number}), 0))", T.JSON)
        return Typed(f"to_jsonb((avg({distinct}{number}))::float8)", T.JSON)

    @staticmethod
    def non_null(value: Typed) -> str:
        if value.type is T.JSON:
            return f"nullif({value.sql}, 'null'::jsonb)"
        return value.sql

    # -- time -----------------------------------------------------------------------------------

    def datetime(self: Translator, args: list[Typed]) -> Typed:
        if not args:
            return Typed("statement_timestamp()", T.DATETIME)
        value = as_json(args[0]).sql
        # datetime('2024-01-01T00:00:00Z') or datetime({epochSeconds: n}) / ({epochMillis: n}).
        return Typed(
            f"(CASE WHEN jsonb_typeof({value}) = 'string' THEN (({value}) #>> '{{}}')::timestamptz "
            f"WHEN ({value}) ? 'epochSeconds' THEN to_timestamp((({value})->>'epochSeconds')::float8) "
            f"WHEN ({value}) ? 'epochMillis' THEN to_timestamp((({value})->>'epochMillis')::float8 / 1000) END)",
            T.DATETIME)

    def datetime_field(self: Translator, value: Typed, key: str) -> Typed:
        fields = {
            "epochseconds": f"floor(extract(epoch FROM {value.sql}))::bigint",
            "epochmillis": f"floor(extract(epoch FROM {value.sql}) * 1000)::bigint",
            "year": f"extract(year FROM {value.sql})::int", "month": f"extract(month FROM {value.sql})::int",
            "day": f"extract(day FROM {value.sql})::int",
        }
        if key.lower() not in fields:
            raise UnsupportedCypher(f"the datetime field {key}")
        return Typed(f"to_jsonb({fields[key.lower()]})", T.JSON)

    def duration(self: Translator, e: a.FunctionCall, args: list[Typed]) -> Typed:
        if len(e.args) != 1:
            raise CypherSemanticError("duration() takes one argument")
        arg = e.args[0]
        if isinstance(arg, a.Literal) and isinstance(arg.value, str):
            return Typed(f"{self.params.add(arg.value, 'interval')}", T.DURATION)
        if isinstance(arg, a.MapLiteral):
            parts = []
            for key, _ in arg.items:
                if key.lower() not in DURATION_UNITS:
                    raise UnsupportedCypher(f"the duration unit {key}")
            value = as_json(args[0]).sql
            for key, _ in arg.items:
                parts.append(f"{DURATION_UNITS[key.lower()]} => (({value})->>{self.params.key(key)})::numeric::int")
            return Typed(f"make_interval({', '.join(parts)})", T.DURATION)
        raise UnsupportedCypher("duration() of a computed value")

    def duration_field(self: Translator, value: Typed, key: str) -> Typed:
        fields = {"days": f"extract(day FROM {value.sql})::bigint",
                  "seconds": f"floor(extract(epoch FROM {value.sql}))::bigint",
                  "milliseconds": f"floor(extract(epoch FROM {value.sql}) * 1000)::bigint"}
        if key.lower() not in fields:
            raise UnsupportedCypher(f"the duration field {key}")
        return Typed(f"to_jsonb({fields[key.lower()]})", T.JSON)

    def temporal_arithmetic(self: Translator, op: str, left: Typed, right: Typed) -> Typed:
        if op not in ("+", "-"):
            raise UnsupportedCypher(f"the operator {op} on dates and durations")
        if left.type is T.DATETIME and right.type is T.DURATION:
            return Typed(f"({left.sql} {op} {right.sql})", T.DATETIME)
        if left.type is T.DURATION and right.type is T.DURATION:
            return Typed(f"({left.sql} {op} {right.sql})", T.DURATION)
        if left.type is T.DATETIME and right.type is T.DATETIME and op == "-":
            return Typed(f"({left.sql} - {right.sql})", T.DURATION)
        raise UnsupportedCypher(f"the operator {op} between a {left.type.value} and a {right.type.value}")
