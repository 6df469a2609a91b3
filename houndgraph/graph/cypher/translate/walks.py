"""Variable-length relationships -> LATERAL recursive walks from one end, with relationship uniqueness (Cypher's
trail semantics) as the cycle check; a walk of reachable nodes where the trails cannot be told apart; and the
relationship type filters single relationships share.
"""

from __future__ import annotations

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.translate import expressions as ex
from houndgraph.graph.cypher.translate.state import Translation
from houndgraph.graph.cypher.translate.values import From, Scope, T, Typed, relationship_kind_ids

UNDIRECTED_EDGES = (
    "(SELECT id, start_id, end_id, kind_id, properties, start_id AS s, end_id AS t FROM edge "
    "UNION ALL SELECT id, start_id, end_id, kind_id, properties, end_id, start_id FROM edge "
    "WHERE start_id <> end_id)"
)


def kind_filter(st: Translation, column: str, types: tuple[str, ...]) -> str | None:
    if not types:
        return None
    ids = relationship_kind_ids(st.kinds, types)
    return f"{column} IN ({', '.join(map(str, ids))})" if ids else "FALSE"


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
