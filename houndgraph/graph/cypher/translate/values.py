"""The translator's vocabulary: typed SQL fragments, bound parameters, variable scopes."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import Enum
from typing import Any

from psycopg.types.json import Jsonb

from houndgraph.graph.cypher.errors import CypherSemanticError
from houndgraph.graph.kinds import AD_TRAVERSABLE_EDGES, AZ_TRAVERSABLE_EDGES


class T(Enum):
    """The SQL representation of a Cypher value."""

    NODE = "node"  # bigint node id
    REL = "rel"  # bigint edge id
    PATH = "path"  # bigint[]: node, edge, node, ... ids
    NODES = "nodes"  # bigint[] of node ids
    RELS = "rels"  # bigint[] of edge ids
    PATHS = "paths"  # jsonb array of paths
    JSON = "json"  # jsonb: every scalar, list and map
    BOOL = "bool"  # SQL boolean (predicates)
    DATETIME = "datetime"  # timestamptz
    DURATION = "duration"  # interval


# Typed.constant of a value the statement computes.
NOT_CONSTANT: Any = type("NotConstant", (), {"__repr__": lambda self: "NOT_CONSTANT"})()


@dataclass(frozen=True)
class Typed:
    sql: str
    type: T
    # For NODE / REL bindings: the alias of a joined node / edge row (properties, kinds).
    alias: str | None = None
    # The value itself where the translator computed it (translate/constants.py: temporal values).
    constant: Any = field(default=NOT_CONSTANT, compare=False)

    @property
    def is_entity(self) -> bool:
        return self.type in (T.NODE, T.REL)


NULL_JSON = Typed("NULL::jsonb", T.JSON)

# The reference's relationship type shortcuts: one name standing for every traversable kind.
RELATIONSHIP_SHORTCUTS: dict[str, tuple[str, ...]] = {
    "AD_ATTACK_PATHS": tuple(sorted(AD_TRAVERSABLE_EDGES)),
    "AZ_ATTACK_PATHS": tuple(sorted(AZ_TRAVERSABLE_EDGES)),
}


def relationship_kind_ids(kinds: Mapping[str, int], types: Iterable[str]) -> list[int]:
    """The kind ids of the relationship types as written, shortcuts expanded; unknown types match nothing."""
    names = [name for t in types for name in RELATIONSHIP_SHORTCUTS.get(t, (t,))]
    return sorted({kinds[name] for name in names if name in kinds})


@dataclass(frozen=True)
class Inputs:
    """Rows of bindings from the earlier steps of an updating query, handed to the next statement
    as one jsonb parameter: an array of rows, each an array of its columns' values."""

    columns: tuple[tuple[str, T], ...]
    rows: tuple[tuple[Any, ...], ...]

    def encoded(self) -> list[list[Any]]:
        return [[_encode(value) for value in row] for row in self.rows]

    @staticmethod
    def decode(json: str, kind: T) -> str:
        """SQL reading one encoded column back in the translator's representation of `kind`."""
        if kind in (T.NODE, T.REL):
            return f"(({json})#>>'{{}}')::bigint"
        if kind in (T.PATH, T.NODES, T.RELS):
            return (f"(CASE WHEN jsonb_typeof({json}) = 'array' THEN ARRAY(SELECT x::bigint FROM "
                    f"jsonb_array_elements_text({json}) WITH ORDINALITY AS t(x, o) ORDER BY o) END)")
        if kind is T.BOOL:
            return f"(({json})#>>'{{}}')::boolean"
        if kind is T.DATETIME:
            return f"(({json})#>>'{{}}')::timestamptz"
        if kind is T.DURATION:
            return f"(({json})#>>'{{}}')::interval"
        return f"nullif({json}, 'null'::jsonb)"


def _encode(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, timedelta):
        return f"{value.total_seconds()} seconds"
    return value


@dataclass
class From:
    items: list[str] = field(default_factory=lambda: ["(VALUES (1)) AS unit(hg_unit)"])
    where: list[str] = field(default_factory=list)

    def join(self, item: str) -> None:
        self.items.append(item)

    def sql(self) -> str:
        where = f" WHERE {' AND '.join(self.where)}" if self.where else ""
        return f"FROM {' '.join([self.items[0], *self.items[1:]])}{where}"


SAFE_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Params:
    """Collects bound values; the SQL only ever holds their placeholders."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}

    def add(self, value: Any, cast: str | None = None) -> str:
        name = f"p{len(self.values)}"
        self.values[name] = value
        placeholder = f"%({name})s"
        return f"{placeholder}::{cast}" if cast else placeholder

    def json(self, value: Any) -> str:
        return self.add(Jsonb(value, dumps=cypher_json) if _holds_whole_float(value) else Jsonb(value), "jsonb")

    def key(self, key: str) -> str:
        """A property key as a SQL text value. Plain identifiers are written as constants so that
        expression indexes on (properties->>'objectid') and (properties->>'name') apply."""
        if SAFE_KEY.match(key):
            return f"'{key}'"
        return self.add(key, "text")


def cypher_json(value: Any) -> str:
    """JSON text in which a whole float keeps a decimal point (`2.0`; `1e308` as its 309 digits and `.0`):
    jsonb keeps the scale it reads, and the scale is what tells a Cypher float from an integer."""
    if isinstance(value, float) and value.is_integer():
        return f"{value:.1f}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(cypher_json(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(key)}: {cypher_json(item)}" for key, item in value.items()) + "}"
    return json.dumps(value)


def _holds_whole_float(value: Any) -> bool:
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, list | tuple):
        return any(_holds_whole_float(item) for item in value)
    if isinstance(value, dict):
        return any(_holds_whole_float(item) for item in value.values())
    return False


class Aliases:
    """Unique SQL aliases for one statement."""

    def __init__(self) -> None:
        self.count = 0

    def new(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"


@dataclass
class Scope:
    """Cypher variables visible at a point of the query, and the enclosing scope (subqueries)."""

    bindings: dict[str, Typed] = field(default_factory=dict)
    parent: Scope | None = None

    def lookup(self, name: str) -> Typed:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.bindings:
                return scope.bindings[name]
            scope = scope.parent
        raise CypherSemanticError(f"Variable `{name}` not defined")

    def has(self, name: str) -> bool:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.bindings:
                return True
            scope = scope.parent
        return False

    def child(self) -> Scope:
        return Scope({}, self)

    def bind(self, name: str, value: Typed) -> None:
        self.bindings[name] = value


def as_json(value: Typed) -> Typed:
    """Any value as jsonb (entities become their ids, as Cypher's toString of an id would)."""
    if value.type is T.JSON:
        return value
    if value.type is T.BOOL:
        return Typed(f"to_jsonb({value.sql})", T.JSON)
    if value.type in (T.NODE, T.REL):
        return Typed(f"to_jsonb({value.sql})", T.JSON)
    if value.type is T.DATETIME:
        return Typed(f"hg_datetime_of({value.sql})", T.JSON)
    if value.type is T.DURATION:
        return Typed(f"hg_duration_of({value.sql})", T.JSON)
    if value.type in (T.PATH, T.NODES, T.RELS):
        return Typed(f"to_jsonb({value.sql})", T.JSON)
    return Typed(value.sql, T.JSON)


def entity_json(value: Typed) -> Typed:
    """A value as jsonb for a place where entities stay entities: a list or map holding them (`[n, 1]`,
    `{key: collect(r)}`). Each node, relationship or path becomes its tagged object (helpers.sql, hg_node_value);
    any other value is as_json's."""
    if value.type is T.NODE:
        return Typed(f"hg_node_value({value.sql})", T.JSON)
    if value.type is T.REL:
        return Typed(f"hg_rel_value({value.sql})", T.JSON)
    if value.type is T.PATH:
        return Typed(f"hg_path_value({value.sql})", T.JSON)
    if value.type in (T.NODES, T.RELS):
        return Typed(f"hg_entities_value({value.sql}, '{'~n' if value.type is T.NODES else '~r'}')", T.JSON)
    if value.type is T.PATHS:
        return Typed(f"hg_paths_value({value.sql})", T.JSON)
    return as_json(value)


def as_bool(value: Typed) -> str:
    """A value in a predicate position, as SQL boolean."""
    if value.type is T.BOOL:
        return value.sql
    if value.type is T.JSON:
        return f"hg_bool({value.sql})"
    raise CypherSemanticError(f"expected a boolean, got a {value.type.value}")
