"""Temporal expressions evaluated while the query is translated.

An expression that builds or reads temporal values from inputs known now (literals, and variables a WITH bound
to such values) is computed here, with Neo4j's semantics (graph/cypher/temporal), and reaches the statement
as one bound parameter, the tagged object of temporal/stored.py (stored as it is, answered as its ISO 8601
text); its `Typed.constant` keeps the value itself for the expressions that read it later.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from functools import cache
from typing import Any

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import CypherError
from houndgraph.graph.cypher.temporal import construct, durations, truncate
from houndgraph.graph.cypher.temporal.stored import tagged
from houndgraph.graph.cypher.temporal.values import (
    DateTime,
    Duration,
    compare,
    component,
    equal,
    is_temporal,
    iso,
)
from houndgraph.graph.cypher.translate.state import Translation
from houndgraph.graph.cypher.translate.values import NOT_CONSTANT, NULL_JSON, Scope, T, Typed
from houndgraph.graph.cypher.validate import walk

CONSTRUCTORS = frozenset(construct.KINDS)
CLOCKS = frozenset(f"{kind}.{clock}" for kind in construct.KINDS for clock in ("statement", "transaction",
                                                                                "realtime"))
TRUNCATIONS = frozenset(f"{kind}.truncate" for kind in construct.KINDS)
BETWEEN = {"duration.between": "between", "duration.inmonths": "months", "duration.indays": "days",
           "duration.inseconds": "seconds"}
EPOCH = frozenset({"datetime.fromepoch", "datetime.fromepochmillis"})
TEMPORAL_FUNCTIONS = CONSTRUCTORS | CLOCKS | TRUNCATIONS | frozenset(BETWEEN) | EPOCH | {"duration"}


class NotConstant(Exception):
    """The expression depends on the rows: the statement computes it."""


@cache
def mentions_temporal(e: a.Expr) -> bool:
    return any(isinstance(node, a.FunctionCall) and node.name in TEMPORAL_FUNCTIONS for node in walk(e))


def folded(st: Translation, e: a.Expr, scope: Scope) -> Typed | None:
    """`e` computed now, or None where it depends on the rows or holds no temporal value."""
    if isinstance(e, a.Literal | a.Variable):
        return None
    if not (mentions_temporal(e) or (st.temporal_bound and _reads_constant(e, scope))):
        return None
    try:
        value = evaluate(e, scope, st.clock)
    except NotConstant:
        return None
    return constant(st, value)


def constant(st: Translation, value: Any) -> Typed:
    if value is None:
        return Typed(NULL_JSON.sql, T.JSON, constant=None)
    if isinstance(value, bool):
        return Typed("TRUE" if value else "FALSE", T.BOOL, constant=value)
    return Typed(st.params.json(plain(value)), T.JSON, constant=value)


def plain(value: Any) -> Any:
    """The value as JSON holds it: temporal values as the tagged objects of temporal/stored.py."""
    if is_temporal(value):
        return tagged(value)
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value


def beside_sql_temporal(st: Translation, left: Typed, right: Typed) -> tuple[Typed, Typed]:
    """Operands of one operator where one is a timestamp or an interval the statement computes (`datetime({epochSeconds:
    n.lastlogon})`): a datetime or duration computed here beside it becomes the same SQL type, so that the two
    compare and add as instants and intervals, not as texts."""
    if left.type in (T.DATETIME, T.DURATION) or right.type in (T.DATETIME, T.DURATION):
        return _as_sql_temporal(st, left), _as_sql_temporal(st, right)
    return left, right


def _as_sql_temporal(st: Translation, value: Typed) -> Typed:
    known = value.constant
    if isinstance(known, DateTime):
        instant = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=known.epoch_nanos // 1000)
        return Typed(st.params.add(instant, "timestamptz"), T.DATETIME, constant=known)
    if isinstance(known, Duration):
        seconds = Decimal(known.total_nanos) / 1_000_000_000
        text = f"{known.months} months {known.days} days {seconds} seconds"
        return Typed(st.params.add(text, "interval"), T.DURATION, constant=known)
    return value


def _reads_constant(e: a.Expr, scope: Scope) -> bool:
    for node in walk(e):
        if isinstance(node, a.Variable) and scope.has(node.name):
            if is_temporal(scope.lookup(node.name).constant):
                return True
    return False


def evaluate(e: a.Expr, scope: Scope, clock: list[datetime]) -> Any:
    if isinstance(e, a.Literal):
        return e.value
    if isinstance(e, a.ListLiteral):
        return [evaluate(item, scope, clock) for item in e.items]
    if isinstance(e, a.MapLiteral):
        return {key: evaluate(item, scope, clock) for key, item in e.items}
    if isinstance(e, a.Variable):
        if not scope.has(e.name):
            raise NotConstant
        value = scope.lookup(e.name).constant
        if value is NOT_CONSTANT:
            raise NotConstant
        return value
    if isinstance(e, a.FunctionCall) and not e.distinct:
        return _call(e.name, clock, [evaluate(arg, scope, clock) for arg in e.args])
    if isinstance(e, a.Property):
        subject = evaluate(e.subject, scope, clock)
        if subject is None:
            return None
        if is_temporal(subject):
            return component(subject, e.key)
        if isinstance(subject, dict):
            return subject.get(e.key)
        raise NotConstant
    if isinstance(e, a.Binary):
        return _binary(e.op, evaluate(e.left, scope, clock), evaluate(e.right, scope, clock))
    if isinstance(e, a.Unary) and e.op == "-":
        value = evaluate(e.operand, scope, clock)
        if isinstance(value, Duration):
            return durations.scaled(value, -1)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return -value
    if isinstance(e, a.IsNull):
        value = evaluate(e.operand, scope, clock)
        return (value is not None) if e.negated else (value is None)
    raise NotConstant


def _call(name: str, clock: list[datetime], args: list[Any]) -> Any:
    if name == "tostring" and len(args) == 1 and is_temporal(args[0]):
        return iso(args[0])
    if name not in TEMPORAL_FUNCTIONS:
        raise NotConstant
    if name in CLOCKS or (name in CONSTRUCTORS and not args):
        if args and args[0] is None:
            return None
        return _now(clock, name.partition(".")[0], args[0] if args else None)
    if name in CONSTRUCTORS:
        _arity(name, args, 1)
        if isinstance(args[0], dict) and "timezone" in {str(k).lower() for k in args[0]} and len(args[0]) == 1:
            return _now(clock, name, args[0])
        return construct.construct(name, args[0])
    if name == "duration":
        _arity(name, args, 1)
        return durations.duration(args[0])
    if name in TRUNCATIONS:
        if len(args) not in (2, 3):
            raise CypherError(f"{name}() takes two or three arguments")
        if args[0] is None:
            return None
        return truncate.truncate(name.partition(".")[0], str(args[0]), args[1], args[2] if len(args) == 3 else None)
    if name in BETWEEN:
        _arity(name, args, 2)
        if args[0] is None or args[1] is None:
            return None
        return durations.between(BETWEEN[name], args[0], args[1])
    if name == "datetime.fromepoch":
        _arity(name, args, 2)
        return construct.construct("datetime", {"epochSeconds": args[0], "nanosecond": args[1]})
    _arity(name, args, 1)
    return construct.construct("datetime", {"epochMillis": args[0]})


def _arity(name: str, args: list[Any], count: int) -> None:
    if len(args) != count:
        raise CypherError(f"{name}() takes {count} argument{'s' if count > 1 else ''}")


def _now(clock: list[datetime], kind: str, zone: object) -> Any:
    """The clock, read once per query: every clock function of one query answers the same instant."""
    if not clock:
        clock.append(datetime.now(UTC))
    moment = clock[0]
    nanos = ((moment.hour * 60 + moment.minute) * 60 + moment.second) * 1_000_000_000 + moment.microsecond * 1000
    value = DateTime(moment.date(), nanos, 0, None)
    if isinstance(zone, dict):
        value = construct.construct("datetime", {"datetime": value, **zone})  # type: ignore[assignment]
    if kind == "datetime":
        return value
    return construct.construct(kind, value)


def _binary(op: str, left: Any, right: Any) -> Any:
    if not (is_temporal(left) or is_temporal(right)):
        raise NotConstant
    if op in ("=", "<>"):
        if left is None or right is None:
            return None
        same = is_temporal(left) and is_temporal(right) and equal(left, right)
        return same if op == "=" else not same
    if op in ("<", ">", "<=", ">="):
        if not (is_temporal(left) and is_temporal(right)):
            return None
        order = compare(left, right)
        if order is None:
            return None
        return {"<": order < 0, ">": order > 0, "<=": order <= 0, ">=": order >= 0}[op]
    if left is None or right is None:
        return None
    if op in ("+", "-") and isinstance(right, Duration) and is_temporal(left):
        return durations.plus(left, right, 1 if op == "+" else -1)
    if op == "+" and isinstance(left, Duration) and is_temporal(right):
        return durations.plus(right, left)
    if op in ("*", "/") and isinstance(left, Duration) and isinstance(right, int | float):
        return durations.scaled(left, right, divide=op == "/")
    if op == "*" and isinstance(right, Duration) and isinstance(left, int | float):
        return durations.scaled(right, left)
    raise CypherError(f"Type mismatch: the operator {op} does not apply to {_kind(left)} and {_kind(right)}")


def _kind(value: Any) -> str:
    return type(value).__name__
