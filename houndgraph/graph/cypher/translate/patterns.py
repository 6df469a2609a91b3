"""MATCH patterns -> FROM items and WHERE conditions.

Nodes are rows of `node`, single relationships rows of `edge`. A variable-length relationship is a
LATERAL recursive walk from its more selective end, with relationship uniqueness (Cypher's trail
semantics) as the cycle check. A shortestPath pattern joins the paths the executor found with a
BFS (graph/paths.py) and handed in as parameters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import CypherSemanticError, UnsupportedCypher
from houndgraph.graph.cypher.translate.values import T, Typed, relationship_kind_ids

if TYPE_CHECKING:
    from houndgraph.graph.cypher.translate.translator import Translator
    from houndgraph.graph.cypher.translate.values import Scope

UNDIRECTED_EDGES = (
    "(SELECT id, start_id, end_id, kind_id, properties, start_id AS s, end_id AS t FROM edge "
    "UNION ALL SELECT id, start_id, end_id, kind_id, properties, end_id, start_id FROM edge "
    "WHERE start_id <> end_id)"
)


@dataclass
class From:
    items: list[str] = field(default_factory=lambda: ["(VALUES (1)) AS unit(x)"])
    where: list[str] = field(default_factory=list)

    def join(self, item: str) -> None:
        self.items.append(item)

    def sql(self) -> str:
        where = f" WHERE {' AND '.join(self.where)}" if self.where else ""
        return f"FROM {' '.join([self.items[0], *self.items[1:]])}{where}"


@dataclass(frozen=True)
class ShortestRequest:
    """What the executor must search before the statement can be written."""

    key: int
    sources: a.Query  # RETURN DISTINCT id(...) of the left end
    targets: a.Query
    kind_ids: tuple[int, ...] | None  # None: every kind
    direction: a.Direction  # from the left end to the right end
    min_depth: int
    max_depth: int | None
    all_paths: bool


class NeedShortestPaths(Exception):  # noqa: N818 - a signal to the executor, not an error
    def __init__(self, request: ShortestRequest) -> None:
        super().__init__(f"shortest path search {request.key} pending")
        self.request = request


def selectivity(node: a.NodePattern, scope: Scope) -> int:
    if node.variable is not None and scope.has(node.variable):
        return 5
    if node.properties is not None:
        keys = {k.lower() for k, _ in node.properties.items}
        return 4 if keys & {"objectid", "name"} else 3
    return 1 if node.labels else 0


class PatternCompiler:
    """Mixed into Translator."""

    def match(self: Translator, frm: From, scope: Scope, clause: a.Match) -> None:
        if not clause.optional:
            rels = []
            for part in clause.patterns:
                rels.extend(self.pattern_part(frm, scope, part, clause))
            self.unique_relationships(frm, rels)
            if clause.where is not None:
                frm.where.append(self.pred(clause.where, scope))
            return
        # OPTIONAL MATCH: the pattern in a LATERAL subquery, left-joined so that no match keeps the row.
        inner = From()
        inner_scope = scope.child()
        rels = []
        for part in clause.patterns:
            rels.extend(self.pattern_part(inner, inner_scope, part, clause))
        self.unique_relationships(inner, rels)
        if clause.where is not None:
            inner.where.append(self.pred(clause.where, inner_scope))
        alias = self.aliases.new("o")
        bindings = [(name, value) for name, value in inner_scope.bindings.items() if not name.startswith(" ")]
        select = ", ".join(f"{value.sql} AS c{i}" for i, (_, value) in enumerate(bindings)) or "1 AS c"
        frm.join(f"LEFT JOIN LATERAL (SELECT {select} {inner.sql()}) AS {alias} ON TRUE")
        for i, (name, value) in enumerate(bindings):
            scope.bind(name, self.rebind(frm, f"{alias}.c{i}", value.type))

    def rebind(self: Translator, frm: From, column: str, kind: T) -> Typed:
        """A value read from a subquery column; nodes and edges get their row joined back."""
        if kind in (T.NODE, T.REL):
            table = "node" if kind is T.NODE else "edge"
            alias = self.aliases.new("n" if kind is T.NODE else "e")
            frm.join(f"LEFT JOIN {table} AS {alias} ON {alias}.id = {column}")
            return Typed(f"{alias}.id", kind, alias)
        return Typed(column, kind)

    def node(self: Translator, frm: From, scope: Scope, pattern: a.NodePattern) -> Typed:
        if pattern.variable is not None and scope.has(pattern.variable):
            value = scope.lookup(pattern.variable)
            if value.type is not T.NODE:
                raise CypherSemanticError(f"Variable `{pattern.variable}` is not a node")
            if value.alias is None:
                value = self.rebind(frm, value.sql, T.NODE)
            frm.where.append(f"{value.sql} IS NOT NULL")
        else:
            alias = self.aliases.new("n")
            frm.join(f"CROSS JOIN node AS {alias}")
            value = Typed(f"{alias}.id", T.NODE, alias)
            if pattern.variable is not None:
                scope.bind(pattern.variable, value)
        if pattern.labels:
            frm.where.append(self.label_condition(f"{value.alias}.kind_ids", pattern.labels))
        self.property_map(frm, scope, value, pattern.properties)
        return value

    def property_map(self: Translator, frm: From, scope: Scope, value: Typed, props: a.MapLiteral | None) -> None:
        if props is None:
            return
        local = scope.child()
        local.bind(" entity", value)
        for key, expected in props.items:
            frm.where.append(self.pred(a.Binary("=", a.Property(a.Variable(" entity"), key), expected), local))

    def pattern_part(self: Translator, frm: From, scope: Scope, part: a.PatternPart,
                     clause: a.Match) -> list[tuple[a.RelPattern, Typed]]:
        if part.shortest is not None:
            return self.shortest_part(frm, scope, part, clause)
        ranks = [selectivity(n, scope) for n in part.nodes]
        nodes = [self.node(frm, scope, n) for n in part.nodes]
        rels: list[tuple[a.RelPattern, Typed]] = []
        segments: list[str] = []
        for index, rel in enumerate(part.rels):
            left, right = nodes[index], nodes[index + 1]
            if rel.variable_length:
                anchor_right = ranks[index + 1] > ranks[index]
                value, segment = self.walk(frm, scope, rel, left, right, anchor_right)
            else:
                value = self.relationship(frm, scope, rel, left, right)
                segment = f"ARRAY[{left.sql}, {value.sql}, {right.sql}]"
            rels.append((rel, value))
            segments.append(segment)
            if rel.variable is not None:
                if scope.has(rel.variable):
                    raise UnsupportedCypher(f"re-using the relationship variable `{rel.variable}` in a pattern")
                scope.bind(rel.variable, value)
        if part.variable is not None:
            path = f"ARRAY[{nodes[0].sql}]::bigint[]"
            for segment in segments:
                path = f"({path} || ({segment})[2:])"
            scope.bind(part.variable, Typed(path, T.PATH))
        return rels

    def kind_filter(self: Translator, column: str, types: tuple[str, ...]) -> str | None:
        if not types:
            return None
        ids = relationship_kind_ids(self.kinds, types)
        return f"{column} IN ({', '.join(map(str, ids))})" if ids else "FALSE"

    def relationship(self: Translator, frm: From, scope: Scope, rel: a.RelPattern, left: Typed,
                     right: Typed) -> Typed:
        alias = self.aliases.new("e")
        if rel.direction is a.Direction.BOTH:
            frm.join(f"CROSS JOIN {UNDIRECTED_EDGES} AS {alias}")
            frm.where.append(f"{alias}.s = {left.sql} AND {alias}.t = {right.sql}")
        else:
            start, end = (left, right) if rel.direction is a.Direction.OUT else (right, left)
            frm.join(f"CROSS JOIN edge AS {alias}")
            frm.where.append(f"{alias}.start_id = {start.sql} AND {alias}.end_id = {end.sql}")
        if (kinds := self.kind_filter(f"{alias}.kind_id", rel.types)) is not None:
            frm.where.append(kinds)
        value = Typed(f"{alias}.id", T.REL, alias)
        self.property_map(frm, scope, value, rel.properties)
        return value

    def walk(self: Translator, frm: From, scope: Scope, rel: a.RelPattern, left: Typed, right: Typed,
             anchor_right: bool) -> tuple[Typed, str]:
        """A variable-length relationship: returns its edge list and its path segment left to right."""
        assert rel.length is not None
        low, high = rel.length
        low = 0 if low is None else low
        anchor, other = (right, left) if anchor_right else (left, right)
        # Walking from the right end reverses the pattern's direction.
        direction = rel.direction
        if anchor_right and direction is not a.Direction.BOTH:
            direction = a.Direction.IN if direction is a.Direction.OUT else a.Direction.OUT
        conditions = []
        if (kinds := self.kind_filter("e.kind_id", rel.types)) is not None:
            conditions.append(kinds)
        if rel.properties is not None:
            local = scope.child()
            local.bind(" edge", Typed("e.id", T.REL, "e"))
            for key, expected in rel.properties.items:
                conditions.append(self.pred(a.Binary("=", a.Property(a.Variable(" edge"), key), expected), local))
        if high is not None:
            conditions.append(f"w.depth < {int(high)}")
        conditions.append("e.id <> ALL(w.edges)")
        if direction is a.Direction.OUT:
            step = "edge AS e ON e.start_id = w.node"
            next_node = "e.end_id"
        elif direction is a.Direction.IN:
            step = "edge AS e ON e.end_id = w.node"
            next_node = "e.start_id"
        else:
            step = ("LATERAL (SELECT id, kind_id, properties, end_id AS nxt FROM edge WHERE start_id = w.node "
                    "UNION ALL SELECT id, kind_id, properties, start_id FROM edge WHERE end_id = w.node "
                    "AND start_id <> end_id) AS e ON TRUE")
            next_node = "e.nxt"
        if anchor_right:
            grow_edges, grow_segment = "e.id || w.edges", f"ARRAY[{next_node}, e.id] || w.segment"
        else:
            grow_edges, grow_segment = "w.edges || e.id", f"w.segment || ARRAY[e.id, {next_node}]"
        alias = self.aliases.new("v")
        frm.join(
            f"CROSS JOIN LATERAL (WITH RECURSIVE w(node, edges, segment, depth) AS ("
            f"SELECT {anchor.sql}, '{{}}'::bigint[], ARRAY[{anchor.sql}]::bigint[], 0 "
            f"UNION ALL SELECT {next_node}, {grow_edges}, {grow_segment}, w.depth + 1 "
            f"FROM w JOIN {step} WHERE {' AND '.join(conditions)}) "
            f"SELECT node, edges, segment FROM w WHERE depth >= {int(low)}) AS {alias}"
        )
        frm.where.append(f"{other.sql} = {alias}.node")
        return Typed(f"{alias}.edges", T.RELS), f"{alias}.segment"

    def unique_relationships(self, frm: From, rels: list[tuple[a.RelPattern, Typed]]) -> None:
        """Within one MATCH no relationship is used twice (Cypher's relationship isomorphism)."""
        for i, (first, first_value) in enumerate(rels):
            for second, second_value in rels[i + 1:]:
                if first.types and second.types and not set(first.types) & set(second.types):
                    continue
                one, two = first_value, second_value
                if one.type is T.REL and two.type is T.REL:
                    frm.where.append(f"{one.sql} <> {two.sql}")
                elif one.type is T.RELS and two.type is T.RELS:
                    frm.where.append(f"NOT ({one.sql} && {two.sql})")
                else:
                    single, many = (one, two) if one.type is T.REL else (two, one)
                    frm.where.append(f"{single.sql} <> ALL({many.sql})")
