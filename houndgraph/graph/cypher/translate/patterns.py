"""MATCH patterns -> FROM items and WHERE conditions.

Nodes are rows of `node`, single relationships rows of `edge`. A variable-length relationship is a
LATERAL recursive walk from its more selective end (walks.py). A shortestPath pattern joins the paths the
executor found with a BFS (graph/paths.py) and handed in as parameters.
"""

from __future__ import annotations

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import CypherSemanticError
from houndgraph.graph.cypher.translate import expressions as ex
from houndgraph.graph.cypher.translate import planning
from houndgraph.graph.cypher.translate import shortest as sp
from houndgraph.graph.cypher.translate.node_columns import join_keys, json_keys, per_node_keys, per_node_texts
from houndgraph.graph.cypher.translate.planning import Filters, selectivity, where_filters
from houndgraph.graph.cypher.translate.state import Translation
from houndgraph.graph.cypher.translate.values import From, Scope, T, Typed
from houndgraph.graph.cypher.translate.walks import UNDIRECTED_EDGES, kind_filter, seed_on_edges, var_length_walk


def match(st: Translation, frm: From, scope: Scope, clause: a.Match) -> None:
    if not clause.optional:
        bind_patterns(st, frm, scope, clause.patterns, clause.where)
        return
    # OPTIONAL MATCH: the pattern in a LATERAL subquery, left-joined so that no match keeps the row.
    inner = From()
    inner_scope = scope.child()
    bind_patterns(st, inner, inner_scope, clause.patterns, clause.where)
    alias = st.aliases.new("o")
    bindings = [(name, value) for name, value in inner_scope.bindings.items() if not name.startswith(" ")]
    select = ", ".join(f"{value.sql} AS c{i}" for i, (_, value) in enumerate(bindings)) or "1 AS c"
    # Whether each row has a match is all that matters after (set_answer): one match stands for all.
    first = " LIMIT 1" if id(clause) in st.answer.first_match else ""
    frm.join(f"LEFT JOIN LATERAL (SELECT {select} {inner.sql()}{first}) AS {alias} ON TRUE")
    for i, (name, value) in enumerate(bindings):
        scope.bind(name, rebind(st, frm, f"{alias}.c{i}", value.type))


def bind_patterns(st: Translation, frm: From, scope: Scope, patterns: tuple[a.PatternPart, ...],
                  where: a.Expr | None) -> None:
    """The patterns' rows and conditions added to `frm`, their variables bound in `scope`."""
    rels = []
    filters = where_filters(where)
    labels = planning.where_labels(where)
    outer, outer_keys = st.node_texts, st.node_keys
    st.per_node, st.node_texts = per_node_texts(where, scope, patterns), dict(outer)
    st.per_node_keys, st.node_keys = per_node_keys(where, scope, patterns), dict(outer_keys)
    bound_here: set[str] = set()
    for part in patterns:
        rels.extend(pattern_part(st, frm, scope, part, filters, labels, bound_here))
    unique_relationships(frm, rels)
    if where is not None:
        frm.where.append(ex.pred(st, where, scope))
        frm.where.extend(join_keys(st, where, scope))
    # The columns stand for these expressions only in this MATCH: a later `n` may be another node.
    st.per_node, st.node_texts = {}, outer
    st.per_node_keys, st.node_keys = {}, outer_keys


def rebind(st: Translation, frm: From, column: str, kind: T) -> Typed:
    """A value read from a subquery column; nodes and edges get their row joined back."""
    if kind in (T.NODE, T.REL):
        table = "node" if kind is T.NODE else "edge"
        alias = st.aliases.new("n" if kind is T.NODE else "e")
        frm.join(f"LEFT JOIN {table} AS {alias} ON {alias}.id = {column}")
        return Typed(f"{alias}.id", kind, alias)
    return Typed(column, kind)


def node(st: Translation, frm: From, scope: Scope, pattern: a.NodePattern) -> Typed:
    if pattern.variable is not None and scope.has(pattern.variable):
        value = scope.lookup(pattern.variable)
        if value.type is T.JSON and value.constant is None:
            # Bound to null (`WITH null AS a MATCH (a)-->()`): the pattern matches nothing.
            value = Typed("NULL::bigint", T.NODE)
        if value.type is not T.NODE:
            raise CypherSemanticError(f"Variable `{pattern.variable}` is not a node")
        if value.alias is None:
            value = rebind(st, frm, value.sql, T.NODE)
        frm.where.append(f"{value.sql} IS NOT NULL")
    else:
        alias = st.aliases.new("n")
        value = Typed(f"{alias}.id", T.NODE, alias)
        texts = st.per_node.pop(pattern.variable, []) if pattern.variable is not None else []
        keys = st.per_node_keys.pop(pattern.variable, []) if pattern.variable is not None else []
        if texts:
            local = scope.child()
            local.bind(pattern.variable or "", value)
            columns = ", ".join(f"{ex.string_text(st, call, local)} AS t{i}" for i, call in enumerate(texts))
            frm.join(f"CROSS JOIN (SELECT {alias}.*, {columns} FROM node AS {alias} OFFSET 0) AS {alias}")
            st.node_texts.update((call, f"{alias}.t{i}") for i, call in enumerate(texts))
        elif keys and (computed := json_keys(st, scope, pattern.variable or "", value, keys)):
            keys = list(computed)
            columns = ", ".join(f"{sql} AS k{i}" for i, sql in enumerate(computed.values()))
            labels = (f" WHERE {ex.label_condition(st, f'{alias}.kind_ids', pattern.labels)}"
                      if pattern.labels else "")
            frm.join(f"CROSS JOIN (SELECT {alias}.*, {columns} FROM node AS {alias}{labels} OFFSET 0) AS {alias}")
            st.node_keys.update((key, f"{alias}.k{i}") for i, key in enumerate(keys))
        else:
            frm.join(f"CROSS JOIN node AS {alias}")
        if pattern.variable is not None:
            scope.bind(pattern.variable, value)
    if pattern.labels:
        frm.where.append(ex.label_condition(st, f"{value.alias}.kind_ids", pattern.labels))
    property_map(st, frm, scope, value, pattern.properties)
    return value


def property_map(st: Translation, frm: From, scope: Scope, value: Typed, props: a.MapLiteral | None) -> None:
    if props is None:
        return
    local = scope.child()
    local.bind(" entity", value)
    for key, expected in props.items:
        frm.where.append(ex.pred(st, a.Binary("=", a.Property(a.Variable(" entity"), key), expected), local))


def pattern_part(st: Translation, frm: From, scope: Scope, part: a.PatternPart, filters: Filters | None = None,
                 labels: planning.Labels | None = None, bound_here: set[str] | None = None
                 ) -> list[tuple[a.RelPattern, Typed]]:
    """`bound_here` collects the relationship variables the MATCH binds (one use each)."""
    bound_here = set() if bound_here is None else bound_here
    if part.shortest is not None:
        return sp.shortest_part(st, frm, scope, part)
    ranks = [selectivity(n, scope, filters) for n in part.nodes]
    placed = [None if edge_end_only(st, scope, part, index) else node(st, frm, scope, n)
              for index, n in enumerate(part.nodes)]
    rels: list[tuple[a.RelPattern, Typed]] = []
    segments: list[str] = []
    for index, rel in enumerate(part.rels):
        bound = bound_relationship(scope, rel, bound_here)
        if not rel.variable_length:
            value = relationship(st, frm, scope, rel, placed[index], placed[index + 1], bound)
            for end in (index, index + 1):
                placed[end] = placed[end] or edge_end(scope, part.nodes[end], value, rel, end == index)
        left, right = placed[index], placed[index + 1]
        assert left is not None and right is not None
        if rel.variable_length:
            # A bound list of relationships is followed in its order, from the left end.
            anchor_right = bound is None and planning.walk_from_right(st.stats, st.kinds, part, index, ranks,
                                                                      labels or {})
            value, segment = var_length_walk(st, frm, scope, rel, (left, right), anchor_right, bound)
            if ranks[index + 1 if anchor_right else index] < planning.FILTERED:
                seed_on_edges(st, frm, rel, right if anchor_right else left, anchor_right)
        else:
            segment = f"ARRAY[{left.sql}, {value.sql}, {right.sql}]"
        rels.append((rel, value))
        segments.append(segment)
        if rel.variable is not None and bound is None:
            scope.bind(rel.variable, value)
            bound_here.add(rel.variable)
    if part.variable is not None:
        refuse_bound_path(scope, part.variable)
        assert placed[0] is not None
        path = f"ARRAY[{placed[0].sql}]::bigint[]"
        for segment in segments:
            path = f"({path} || ({segment})[2:])"
        scope.bind(part.variable, Typed(path, T.PATH))
    return rels


def bound_relationship(scope: Scope, rel: a.RelPattern, bound_here: set[str]) -> Typed | None:
    """The value of a relationship variable bound before this MATCH (`WITH r MATCH (a)-[r]->(b)`): the pattern
    then matches that relationship (a list of them, in order, for a variable-length one), or nothing when it is
    null. Named twice within one MATCH, it would be one relationship used twice: Neo4j refuses that."""
    if rel.variable is None or not scope.has(rel.variable):
        return None
    if rel.variable in bound_here:
        raise CypherSemanticError(f"Cannot use the same relationship variable '{rel.variable}' for multiple "
                                  "relationships (RelationshipUniquenessViolation)")
    value = scope.lookup(rel.variable)
    wanted = T.RELS if rel.variable_length else T.REL
    if value.type is T.JSON and value.constant is None:
        return Typed(f"NULL::{'bigint[]' if rel.variable_length else 'bigint'}", wanted)
    if value.type is not wanted:
        what = "a list of relationships" if rel.variable_length else "a relationship"
        raise CypherSemanticError(f"Variable `{rel.variable}` is not {what} (VariableTypeConflict)")
    return value


def refuse_bound_path(scope: Scope, name: str) -> None:
    """A path variable names a new path: one bound already (a node, a relationship, another path) is Neo4j's
    VariableAlreadyBound."""
    if scope.has(name):
        raise CypherSemanticError(f"Variable `{name}` already declared (VariableAlreadyBound)")


def edge_end_only(st: Translation, scope: Scope, part: a.PatternPart, index: int) -> bool:
    """Whether the pattern node at `index` is read as the end id of the single relationship met first beside it,
    its row never joined: a node of no label and no property, unnamed or named only in count(), stands for any
    node, and every edge's ends are nodes (foreign keys). `MATCH (g:Group)<-[:MemberOf]-(m) ... count(m)` then
    reads 214k edges, not 214k edges and their members' rows."""
    pattern = part.nodes[index]
    if pattern.labels or pattern.properties is not None:
        return False
    if pattern.variable is not None and (scope.has(pattern.variable) or pattern.variable not in st.counted_only):
        return False
    first = part.rels[index - 1] if index > 0 else part.rels[0] if part.rels else None
    return first is not None and not first.variable_length


def edge_end(scope: Scope, pattern: a.NodePattern, edge: Typed, rel: a.RelPattern, left: bool) -> Typed:
    """The node at one end of the relationship `edge`, as its id column (edge_end_only)."""
    if rel.direction is a.Direction.BOTH:
        column = "s" if left else "t"
    else:
        column = "start_id" if left == (rel.direction is a.Direction.OUT) else "end_id"
    value = Typed(f"{edge.alias}.{column}", T.NODE)
    if pattern.variable is not None:
        scope.bind(pattern.variable, value)
    return value


def relationship(st: Translation, frm: From, scope: Scope, rel: a.RelPattern, left: Typed | None,
                 right: Typed | None, bound: Typed | None = None) -> Typed:
    """A single relationship between two placed nodes; an end still None is read from it (edge_end). A bound
    relationship (bound_relationship) is looked up by its id, in both directions where the pattern has none."""
    alias = st.aliases.new("e")
    if bound is not None:
        frm.where.append(f"{alias}.id = {bound.sql}")
    if rel.direction is a.Direction.BOTH:
        frm.join(f"CROSS JOIN {UNDIRECTED_EDGES} AS {alias}")
        ends = (("s", left), ("t", right))
    else:
        start, end = (left, right) if rel.direction is a.Direction.OUT else (right, left)
        frm.join(f"CROSS JOIN edge AS {alias}")
        ends = (("start_id", start), ("end_id", end))
    frm.where.extend(f"{alias}.{column} = {value.sql}" for column, value in ends if value is not None)
    if (kinds := kind_filter(st, f"{alias}.kind_id", rel.types)) is not None:
        frm.where.append(kinds)
    value = Typed(f"{alias}.id", T.REL, alias) if bound is None else Typed(bound.sql, T.REL, alias)
    property_map(st, frm, scope, Typed(f"{alias}.id", T.REL, alias), rel.properties)
    return value


def unique_relationships(frm: From, rels: list[tuple[a.RelPattern, Typed]]) -> None:
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
