"""MATCH patterns -> FROM items and WHERE conditions.

Nodes are rows of `node`, single relationships rows of `edge`. A variable-length relationship is a
LATERAL recursive walk from its more selective end, with relationship uniqueness (Cypher's trail
semantics) as the cycle check. A shortestPath pattern joins the paths the executor found with a
BFS (graph/paths.py) and handed in as parameters.
"""

from __future__ import annotations

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import CypherSemanticError
from houndgraph.graph.cypher.translate import expressions as ex
from houndgraph.graph.cypher.translate import functions as fn
from houndgraph.graph.cypher.translate import planning
from houndgraph.graph.cypher.translate import shortest as sp
from houndgraph.graph.cypher.translate.state import Translation
from houndgraph.graph.cypher.translate.values import From, Scope, T, Typed, relationship_kind_ids
from houndgraph.graph.cypher.validate import walk

UNDIRECTED_EDGES = (
    "(SELECT id, start_id, end_id, kind_id, properties, start_id AS s, end_id AS t FROM edge "
    "UNION ALL SELECT id, start_id, end_id, kind_id, properties, end_id, start_id FROM edge "
    "WHERE start_id <> end_id)"
)


# Properties that name one object (or one per domain: `objectid ENDS WITH '-512'`).
_IDENTIFYING = frozenset({"objectid", "name"})
# Comparisons of a property with a constant that the WHERE clause can filter a node on before any walk.
_FILTERING_OPS = frozenset({"=", "IN", "STARTS", "ENDS", "CONTAINS", "=~", "<", ">", "<=", ">="})
# Filters, by variable: the lower-cased property keys compared with a constant.
Filters = dict[str, set[str]]


def where_filters(where: a.Expr | None) -> Filters:
    """The properties the top-level AND conjuncts of a WHERE clause compare with a constant, by variable:
    what the planner knows of an end's selectivity beyond its inline map and labels."""
    filters: Filters = {}
    for expr in sp.conjuncts(where):
        if not isinstance(expr, a.Binary) or expr.op not in _FILTERING_OPS:
            continue
        for subject, other in ((expr.left, expr.right), (expr.right, expr.left)):
            if isinstance(subject, a.Property) and isinstance(subject.subject, a.Variable) and _constant(other):
                filters.setdefault(subject.subject.name, set()).add(subject.key.lower())
    return filters


def _constant(expr: a.Expr) -> bool:
    if isinstance(expr, a.ListLiteral):
        return all(_constant(item) for item in expr.items)
    return isinstance(expr, a.Literal)


def selectivity(node: a.NodePattern, scope: Scope, filters: Filters | None = None) -> int:
    """How few rows a pattern node stands for, roughly: bound > identified > filtered > labelled > any.
    A variable-length walk starts from the higher end (the left one on a tie)."""
    if node.variable is not None and scope.has(node.variable):
        return 5
    keys = {k.lower() for k, _ in node.properties.items} if node.properties is not None else set()
    if node.variable is not None and filters:
        keys |= filters.get(node.variable, set())
    if keys:
        return 4 if keys & _IDENTIFYING else 3
    return 1 if node.labels else 0


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


def per_node_texts(where: a.Expr | None, scope: Scope, patterns: tuple[a.PatternPart, ...]
                   ) -> dict[str, list[a.FunctionCall]]:
    """The string functions of node properties to compute once per node row, by node variable.
    `UNWIND [...12 words] AS word MATCH (n) WHERE toLower(n.name) CONTAINS toLower(word) OR ...` compares
    every node with every word, and PostgreSQL evaluates a join condition per pair: each node's name would be
    read out of its JSON and lower-cased twelve times. For a node new to this MATCH, with no label or property
    map, whose every WHERE condition also names a variable bound before it (so that none could pick its rows
    from an index), its `toLower(n.key)`-like calls become columns of the node's scan, under a subquery the
    database does not flatten (OFFSET 0)."""
    if where is None:
        return {}
    terms = sp.conjuncts(where)
    found: dict[str, list[a.FunctionCall]] = {}
    for node in (n for part in patterns for n in part.nodes):
        variable = node.variable
        if variable is None or scope.has(variable) or node.labels or node.properties is not None:
            continue
        own = [term for term in terms if variable in sp.free_variables(term)]
        if not own or any(not any(scope.has(name) for name in sp.free_variables(term) - {variable})
                          or _rebinds(term, variable) or _keyed(term, variable) for term in own):
            continue
        calls = [e for term in own for e in walk(term)
                 if isinstance(e, a.FunctionCall) and _text_of_property(e, variable)]
        if calls:
            found[variable] = list(dict.fromkeys(calls))
    return found


def per_node_keys(where: a.Expr | None, scope: Scope, patterns: tuple[a.PatternPart, ...]
                  ) -> dict[str, list[a.Expr]]:
    """The join keys to compute once per node row, by node variable: both sides of each top-level `x = y` or
    `x <> y` of the WHERE clause where `x` is read or computed from one node new to this MATCH and `y` from
    another (`split(u1.name, '@')[0] = split(u2.name, '@')[0]`, `n.domainsid <> m.domainsid`). Written into the
    join condition, each side is computed again wherever the database compares it, and every node row travels
    whole to the join: it sorted both sets of 58k users, whole rows, by a jsonb key for a merge join (1 s), and
    passed 214k (member, group) pairs with the group's properties between processes to compare two domain
    SIDs. As a column of the node's scan (with its labels, under a subquery the database does not flatten) each
    key is computed once, the join hashes on two columns, and the properties no condition reads stay behind.
    A node with a property map, or a WHERE condition that could find it by an index (a property compared with a
    constant or another value), keeps its plain scan."""
    if where is None:
        return {}
    terms = sp.conjuncts(where)
    nodes = {n.variable: n for part in patterns if part.shortest is None for n in part.nodes
             if n.variable is not None and not scope.has(n.variable)}
    found: dict[str, list[a.Expr]] = {}
    for term in terms:
        if not (isinstance(term, a.Binary) and term.op in ("=", "<>")):
            continue
        sides = [(_read_from(side), side) for side in (term.left, term.right)]
        (left, _), (right, _) = sides
        if left is None or right is None or left == right or left not in nodes or right not in nodes:
            continue
        for variable, side in sides:
            assert variable is not None
            found.setdefault(variable, []).append(side)
    filtered = where_filters(where)
    return {variable: list(dict.fromkeys(keys)) for variable, keys in found.items()
            if nodes[variable].properties is None and variable not in filtered
            and not any(_keyed(term, variable) or _rebinds(term, variable) for term in terms)}


# What a join key may be computed from: a node's properties, literals, functions and operators of them.
_KEY_PARTS = (a.Property, a.Variable, a.Literal, a.FunctionCall, a.Index, a.Binary, a.Unary, str, int, bool, float,
              type(None), tuple)


def _read_from(e: a.Expr) -> str | None:
    """The one variable `e` reads a property of, or is computed from (`_computed_from`)."""
    if isinstance(e, a.Property) and isinstance(e.subject, a.Variable):
        return e.subject.name
    return _computed_from(e)


def _computed_from(e: a.Expr) -> str | None:
    """The one variable `e` is computed from, when it is a computation (not the variable or its property) of
    scalar functions and operators only."""
    if isinstance(e, a.Variable | a.Property | a.Literal):
        return None
    parts = list(walk(e))
    if any(not isinstance(part, _KEY_PARTS) or (isinstance(part, a.FunctionCall) and part.name in fn.AGGREGATES)
           for part in parts):
        return None
    names = {part.name for part in parts if isinstance(part, a.Variable)}
    return names.pop() if len(names) == 1 else None


def _keyed(term: a.Expr, variable: str) -> bool:
    """Whether `term` compares a property of the node itself with another value: `n.objectid = id` may find the
    node by an index for each earlier row, which a subquery the database does not flatten would prevent."""
    return isinstance(term, a.Binary) and term.op in ("=", "IN", "STARTS", "ENDS") and any(
        isinstance(side, a.Property) and isinstance(side.subject, a.Variable) and side.subject.name == variable
        for side in (term.left, term.right))


def _rebinds(term: a.Expr, variable: str) -> bool:
    return any(isinstance(e, a.ListComprehension | a.Quantifier) and e.variable == variable for e in walk(term))


def _text_of_property(e: a.FunctionCall, variable: str) -> bool:
    return (e.name in fn.STRING_FUNCTIONS and len(e.args) == 1 and not e.distinct
            and isinstance(e.args[0], a.Property) and isinstance(e.args[0].subject, a.Variable)
            and e.args[0].subject.name == variable)


def join_keys(st: Translation, where: a.Expr, scope: Scope) -> list[str]:
    """For each top-level `x = y` or `x <> y` of a WHERE clause between two computed values, the plain jsonb
    comparison it implies: Cypher's equality (with its null rules for lists and maps) is true only where
    jsonb's is, its inequality only where jsonb's is, and a row the WHERE clause keeps needs it true.
    PostgreSQL can hash-join on the plain `=`; without it two node sets compared on a computed key
    (`split(u1.name, '@')[0] = split(u2.name, '@')[0]`) meet by a nested loop over every pair. The plain
    `<>` is a cheap filter the database runs first (it orders conditions by cost): the members of groups of
    their own domain, nearly all of them, never reach Cypher's comparison."""
    keys = []
    for term in sp.conjuncts(where):
        if not (isinstance(term, a.Binary) and term.op in ("=", "<>")) or any(
                isinstance(side, a.Literal | a.ListLiteral | a.MapLiteral) for side in (term.left, term.right)):
            continue
        left, right = ex.expr(st, term.left, scope), ex.expr(st, term.right, scope)
        if left.type is T.JSON and right.type is T.JSON:
            keys.append(f"({left.sql} {term.op} {right.sql})")
    return keys


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
        elif keys and (computed := _json_keys(st, scope, pattern.variable or "", value, keys)):
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


def _json_keys(st: Translation, scope: Scope, variable: str, value: Typed, keys: list[a.Expr]) -> dict[a.Expr, str]:
    """The SQL of the join keys that are scalars (jsonb), by key: a key of another type (a boolean, a datetime)
    keeps its own form, which other conditions compare by its type."""
    local = scope.child()
    local.bind(variable, value)
    compiled = {key: ex.expr(st, key, local) for key in keys}
    return {key: typed.sql for key, typed in compiled.items() if typed.type is T.JSON}


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


def kind_filter(st: Translation, column: str, types: tuple[str, ...]) -> str | None:
    if not types:
        return None
    ids = relationship_kind_ids(st.kinds, types)
    return f"{column} IN ({', '.join(map(str, ids))})" if ids else "FALSE"


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


def var_length_walk(st: Translation, frm: From, scope: Scope, rel: a.RelPattern, ends: tuple[Typed, Typed],
                    anchor_right: bool, bound: Typed | None = None) -> tuple[Typed, str]:
    """A variable-length relationship: returns its edge list and its path segment left to right. With a bound
    list of relationships (bound_relationship), the walk from the left end takes them in their order."""
    assert rel.length is not None
    left, right = ends
    low, high = rel.length
    low = 0 if low is None else low
    anchor, other = (right, left) if anchor_right else (left, right)
    # Walking from the right end reverses the pattern's direction.
    direction = rel.direction
    if anchor_right and direction is not a.Direction.BOTH:
        direction = a.Direction.IN if direction is a.Direction.OUT else a.Direction.OUT
    conditions = []
    if (kinds := kind_filter(st, "e.kind_id", rel.types)) is not None:
        conditions.append(kinds)
    if rel.properties is not None:
        local = scope.child()
        local.bind(" edge", Typed("e.id", T.REL, "e"))
        for key, expected in rel.properties.items:
            conditions.append(ex.pred(st, a.Binary("=", a.Property(a.Variable(" edge"), key), expected), local))
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
    if bound is not None:
        conditions.append(f"e.id = ({bound.sql})[w.depth + 1]")
    elif id(rel) in st.answer.reach:
        return reachable_walk(st, frm, (anchor, other), (low, high), step, next_node, conditions)
    if high is not None:
        conditions.append(f"w.depth < {int(high)}")
    conditions.append("e.id <> ALL(w.edges)")
    if anchor_right:
        grow_edges, grow_segment = "e.id || w.edges", f"ARRAY[{next_node}, e.id] || w.segment"
    else:
        grow_edges, grow_segment = "w.edges || e.id", f"w.segment || ARRAY[e.id, {next_node}]"
    alias = st.aliases.new("v")
    frm.join(
        f"CROSS JOIN LATERAL (WITH RECURSIVE w(node, edges, segment, depth) AS ("
        f"SELECT {anchor.sql}, '{{}}'::bigint[], ARRAY[{anchor.sql}]::bigint[], 0 "
        f"UNION ALL SELECT {next_node}, {grow_edges}, {grow_segment}, w.depth + 1 "
        f"FROM w JOIN {step} WHERE {' AND '.join(conditions)}) "
        f"SELECT node, edges, segment FROM w WHERE depth >= {int(low)}) AS {alias}"
    )
    frm.where.append(f"{other.sql} = {alias}.node")
    if bound is not None:
        frm.where.append(f"cardinality({alias}.edges) = cardinality({bound.sql})")
        return Typed(bound.sql, T.RELS), f"{alias}.segment"
    return Typed(f"{alias}.edges", T.RELS), f"{alias}.segment"


def reachable_walk(st: Translation, frm: From, ends: tuple[Typed, Typed], length: tuple[int, int | None], step: str,
                   next_node: str, conditions: list[str]) -> tuple[Typed, str]:
    """A variable-length relationship whose trails a query cannot tell apart (set_answer.reach): each node
    reachable from the anchor once, at least one hop away when the range starts at one (a cycle back to the
    anchor counts). Unbounded, the walk keeps only nodes (a recursive UNION ends when no new node is found);
    bounded, (node, depth) pairs up to the bound. It has no edges to give: nothing reads them."""
    (anchor, other), (low, high) = ends, length
    alias = st.aliases.new("v")
    where = " AND ".join(conditions) or "TRUE"
    if high is None:
        seed = (f"SELECT {anchor.sql}" if low == 0 else
                f"SELECT {next_node} FROM (SELECT {anchor.sql} AS node) AS w JOIN {step} WHERE {where}")
        walk_sql = (f"WITH RECURSIVE w(node) AS ({seed} UNION SELECT {next_node} FROM w JOIN {step} WHERE {where}) "
                    f"SELECT node FROM w")
    else:
        walk_sql = (f"WITH RECURSIVE w(node, depth) AS (SELECT {anchor.sql}, 0 UNION SELECT {next_node}, w.depth + 1 "
                    f"FROM w JOIN {step} WHERE {where} AND w.depth < {int(high)}) "
                    f"SELECT DISTINCT node FROM w WHERE depth >= {int(low)}")
    frm.join(f"CROSS JOIN LATERAL ({walk_sql}) AS {alias}")
    frm.where.append(f"{other.sql} = {alias}.node")
    return Typed("NULL::bigint[]", T.RELS), "NULL::bigint[]"


def seed_on_edges(st: Translation, frm: From, rel: a.RelPattern, anchor: Typed, anchor_right: bool) -> None:
    """A walk of one step or more starts only from nodes with an edge of its types in its direction: said as a
    semi-join, the database finds the few nodes with an `AZGlobalAdmin` edge among 150k unfiltered ones from the
    edges, instead of starting a recursive walk from each of them."""
    assert rel.length is not None
    low = rel.length[0]
    if low is None or low < 1 or rel.direction is a.Direction.BOTH or not rel.types:
        return
    kinds = kind_filter(st, "kind_id", rel.types)
    forward = (rel.direction is a.Direction.OUT) != anchor_right
    frm.where.append(f"{anchor.sql} IN (SELECT {'start_id' if forward else 'end_id'} FROM edge WHERE {kinds})")


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
