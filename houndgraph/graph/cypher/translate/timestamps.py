"""Timestamps and intervals the statement computes from values of the rows (`datetime({epochSeconds:
n.lastlogon})`, `duration({days: n.days})`): PostgreSQL's timestamptz and interval, their fields and arithmetic.
Temporal values of literals are computed while translating (constants.py); beside a value of the rows, these
become the tagged objects of temporal/stored.sql."""

from __future__ import annotations

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import CypherSemanticError, UnsupportedCypher
from houndgraph.graph.cypher.translate.state import Translation
from houndgraph.graph.cypher.translate.values import T, Typed, as_json

DURATION_UNITS = {"years": "years", "months": "months", "weeks": "weeks", "days": "days", "hours": "hours",
                  "minutes": "mins", "seconds": "secs"}


def timestamp_call(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    return Typed("to_jsonb((extract(epoch FROM statement_timestamp()) * 1000)::bigint)", T.JSON)


def datetime_call(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    if not args:
        return Typed("statement_timestamp()", T.DATETIME)
    value = as_json(args[0]).sql
    # datetime('2024-01-01T00:00:00Z') or datetime({epochSeconds: n}) / ({epochMillis: n}).
    return Typed(
        f"(CASE WHEN jsonb_typeof({value}) = 'string' THEN (({value}) #>> '{{}}')::timestamptz "
        f"WHEN ({value}) ? 'epochSeconds' THEN to_timestamp((({value})->>'epochSeconds')::float8) "
        f"WHEN ({value}) ? 'epochMillis' THEN to_timestamp((({value})->>'epochMillis')::float8 / 1000) END)",
        T.DATETIME)


def datetime_field(value: Typed, key: str) -> Typed:
    fields = {
        "epochseconds": f"floor(extract(epoch FROM {value.sql}))::bigint",
        "epochmillis": f"floor(extract(epoch FROM {value.sql}) * 1000)::bigint",
        "year": f"extract(year FROM {value.sql})::int", "month": f"extract(month FROM {value.sql})::int",
        "day": f"extract(day FROM {value.sql})::int",
    }
    if key.lower() not in fields:
        raise UnsupportedCypher(f"the datetime field {key}")
    return Typed(f"to_jsonb({fields[key.lower()]})", T.JSON)


def duration_call(st: Translation, e: a.FunctionCall, args: list[Typed]) -> Typed:
    if len(e.args) != 1:
        raise CypherSemanticError("duration() takes one argument")
    arg = e.args[0]
    if isinstance(arg, a.Literal) and isinstance(arg.value, str):
        return Typed(f"{st.params.add(arg.value, 'interval')}", T.DURATION)
    if isinstance(arg, a.MapLiteral):
        parts = []
        for key, _ in arg.items:
            if key.lower() not in DURATION_UNITS:
                raise UnsupportedCypher(f"the duration unit {key}")
        value = as_json(args[0]).sql
        for key, _ in arg.items:
            parts.append(f"{DURATION_UNITS[key.lower()]} => (({value})->>{st.params.key(key)})::numeric::int")
        return Typed(f"make_interval({', '.join(parts)})", T.DURATION)
    raise UnsupportedCypher("duration() of a computed value")


def duration_field(value: Typed, key: str) -> Typed:
    fields = {"days": f"extract(day FROM {value.sql})::bigint",
              "seconds": f"floor(extract(epoch FROM {value.sql}))::bigint",
              "milliseconds": f"floor(extract(epoch FROM {value.sql}) * 1000)::bigint"}
    if key.lower() not in fields:
        raise UnsupportedCypher(f"the duration field {key}")
    return Typed(f"to_jsonb({fields[key.lower()]})", T.JSON)


def temporal_arithmetic(op: str, left: Typed, right: Typed) -> Typed:
    if op not in ("+", "-"):
        raise UnsupportedCypher(f"the operator {op} on dates and durations")
    if left.type is T.DATETIME and right.type is T.DURATION:
        return Typed(f"({left.sql} {op} {right.sql})", T.DATETIME)
    if left.type is T.DURATION and right.type is T.DURATION:
        return Typed(f"({left.sql} {op} {right.sql})", T.DURATION)
    if left.type is T.DATETIME and right.type is T.DATETIME and op == "-":
        return Typed(f"({left.sql} - {right.sql})", T.DURATION)
    raise UnsupportedCypher(f"the operator {op} between a {left.type.value} and a {right.type.value}")
