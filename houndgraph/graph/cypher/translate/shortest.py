"""shortestPath / allShortestPaths inside MATCH.

The search itself runs outside the statement (graph/paths.py: bidirectional or single-root BFS, one
batched query per level). A first pass over the query, `requests`, lists the searches: for each
shortestPath pattern of a top-level MATCH, two small queries that list the candidate end points
(the clauses before this MATCH, plus the end's own pattern and the WHERE conditions that only
concern it). Once the executor has the paths, the statement joins them as a parameter table and
applies the rest of the MATCH as usual.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from houndgraph.graph.connection import int_array, int_arrays
from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import UnsupportedCypher
from houndgraph.graph.cypher.translate import patterns as pt
from houndgraph.graph.cypher.translate.functions import contains_aggregate
from houndgraph.graph.cypher.translate.state import Translation
from houndgraph.graph.cypher.translate.values import From, Scope, T, Typed, relationship_kind_ids
from houndgraph.graph.cypher.validate import walk


@dataclass(frozen=True)
class ShortestRequest:
    """One search the executor must run before the statement can be written."""

    sources: a.Query  # RETURN DISTINCT the left end node
    targets: a.Query
    kind_ids: tuple[int, ...] | None  # None: every kind
    direction: a.Direction  # from the left end to the right end
    min_depth: int
    max_depth: int | None
    all_paths: bool


def requests(query: a.Query, kinds: Mapping[str, int], inputs: Sequence[str] = ()) -> list[ShortestRequest]:
    """The searches of the query's shortestPath patterns, in the order the translator meets them;
    `inputs` names the variables an updating query's earlier steps bind."""
    found: list[ShortestRequest] = []
    for single in query.parts:
        bound = list(inputs)
        for index, clause in enumerate(single.clauses):
            if isinstance(clause, a.Match):
                found.extend(_request(part, clause, single.clauses[:index], bound, kinds)
                             for part in clause.patterns if part.shortest is not None)
            bound = _bound_after(clause, bound)
    return found


def rows_wanted(query: a.Query) -> tuple[int, int] | None:
    """(SKIP, LIMIT) of a query that is MATCH clauses (none optional) and a RETURN with a LIMIT, no ORDER BY and
    no aggregate: its rows only grow with the paths found (each row stands on its own paths, and a join only
    adds rows for more paths), so any paths that already give LIMIT rows after SKIP are an answer, and the
    search may stop there. `MATCH (c)-[:MemberOf]->(g) WHERE ... MATCH p=shortestPath((n)-[*1..]->(c))
    RETURN p LIMIT 1000` is one. None for every other query (an OPTIONAL MATCH row without paths would
    vanish once they come)."""
    projection = _growing_projection(query)
    if projection is None or projection.order:
        return None
    skip, limit = _count(projection.skip, 0), _count(projection.limit, None)
    if skip is None or limit is None or limit < 1:
        return None
    return skip, limit


def rows_past(query: a.Query, max_rows: int) -> tuple[int, int] | None:
    """(SKIP, max_rows + 1) of a query whose rows only grow with the paths found, as for `rows_wanted`, but
    with no LIMIT (an ORDER BY does not matter here): once the paths found so far give more rows than
    `max_rows`, all of them will too, and the query can be refused without searching on. Every principal to
    Tier Zero is one such: a path per (principal, Tier Zero object) pair, millions at 100k objects."""
    projection = _growing_projection(query)
    if projection is None or projection.limit is not None:
        return None
    skip = _count(projection.skip, 0)
    return None if skip is None else (skip, max_rows + 1)


def _growing_projection(query: a.Query) -> a.Projection | None:
    """The RETURN projection of a query whose rows only grow with the paths found: MATCH clauses (none
    optional), then a RETURN with no aggregate."""
    if len(query.parts) != 1 or len(query.parts[0].clauses) < 2:
        return None
    *matches, ret = query.parts[0].clauses
    if any(not isinstance(match, a.Match) or match.optional for match in matches) or not isinstance(ret, a.Return):
        return None
    if any(contains_aggregate(item.expression) for item in ret.projection.items):
        return None
    return ret.projection


def _count(e: a.Expr | None, default: int | None) -> int | None:
    """A SKIP or LIMIT written as a number; `default` when absent, None when given otherwise."""
    if e is None:
        return default
    if isinstance(e, a.Literal) and isinstance(e.value, int) and not isinstance(e.value, bool) and e.value >= 0:
        return e.value
    return None


def _request(part: a.PatternPart, clause: a.Match, prefix: tuple[a.Clause, ...], bound: Sequence[str],
             kinds: Mapping[str, int]) -> ShortestRequest:
    low, high = _bounds(part)
    rel = part.rels[0]
    kind_ids = tuple(relationship_kind_ids(kinds, rel.types)) if rel.types else None
    left, right = part.nodes
    return ShortestRequest(_endpoint_query(left, clause, prefix, bound, _other_end(left, right, low)),
                           _endpoint_query(right, clause, prefix, bound, _other_end(right, left, low)),
                           kind_ids, rel.direction, low, high, part.shortest is a.Shortest.ALL)


def _other_end(node: a.NodePattern, other: a.NodePattern, low: int) -> str | None:
    """The other end's variable when `node <> other` may be left out of the end's candidates: a search of paths
    of one step or more never pairs a node with itself, so the only candidate it keeps out (a node that is
    the other end in every row) would not have been searched from anyway."""
    if low < 1 or node.variable is None or other.variable is None or node.variable == other.variable:
        return None
    return other.variable


def _bound_after(clause: a.Clause, bound: list[str]) -> list[str]:
    """The variables in scope after `clause`. A CALL { } adds its explicit return columns only: the
    end point queries then keep fewer WHERE conditions, which widens their candidates, never narrows."""
    if isinstance(clause, a.Match):
        names = [part.variable for part in clause.patterns]
        names += [n.variable for part in clause.patterns for n in part.nodes]
        names += [r.variable for part in clause.patterns for r in part.rels]
        return bound + [n for n in names if n is not None]
    if isinstance(clause, a.Unwind):
        return [*bound, clause.variable]
    if isinstance(clause, a.With):
        kept = bound if clause.projection.star else []
        return kept + [item.alias for item in clause.projection.items]
    if isinstance(clause, a.CallSubquery):
        last = clause.query.parts[0].clauses[-1]
        if isinstance(last, a.Return):
            return bound + [item.alias for item in last.projection.items]
    return bound


def _bounds(part: a.PatternPart) -> tuple[int, int | None]:
    """The pattern's (minimum, maximum) length; refuses the forms the search cannot run."""
    if len(part.rels) != 1:
        raise UnsupportedCypher(f"{part.shortest} over a pattern of more than one relationship")
    rel = part.rels[0]
    low, high = rel.length if rel.length is not None else (1, 1)
    low = 1 if low is None else low
    if low > 1:
        raise UnsupportedCypher(f"{part.shortest} with a minimum length above 1")
    return low, high


def conjuncts(e: a.Expr | None) -> list[a.Expr]:
    if e is None:
        return []
    if isinstance(e, a.Binary) and e.op == "AND":
        return conjuncts(e.left) + conjuncts(e.right)
    return [e]


def free_variables(e: a.Expr) -> set[str]:
    """The variables `e` reads from its scope. Those a pattern inside it names count too: a pattern predicate's
    are all references, and treating a pattern comprehension's or EXISTS's own as references only keeps the
    term out of the end point queries (wider candidates, the same answer)."""
    names = {n.name for n in walk(e) if isinstance(n, a.Variable)}
    names |= {n.variable for n in walk(e) if isinstance(n, a.NodePattern | a.RelPattern) and n.variable}
    bound = {n.variable for n in walk(e) if isinstance(n, a.ListComprehension | a.Quantifier)}
    return names - bound


def _endpoint_query(node: a.NodePattern, clause: a.Match, prefix: tuple[a.Clause, ...],
                    bound: Sequence[str], other_end: str | None = None) -> a.Query:
    variable = node.variable or " end"
    known = set(bound) | {variable}
    where: a.Expr | None = None
    for term in conjuncts(clause.where):
        if free_variables(term) <= known and not (other_end is not None and _unequal(term, variable, other_end)):
            where = term if where is None else a.Binary("AND", where, term)
    pattern = a.PatternPart(None, (a.NodePattern(variable, node.labels, node.properties),), ())
    # The node itself, not id(): a node column is a plain bigint, where a number is read back as JSON. Alone in
    # its MATCH, with no earlier clause or input row, the node pattern gives each node once: no DISTINCT over the
    # 150k nodes of `(n:Base)`.
    ids = a.Projection((a.ProjectionItem(a.Variable(variable), "id"),), distinct=bool(prefix or bound))
    if _one_earlier_row_enough(prefix, bound, variable, where, node):
        # An end that depends on no earlier row (`MATCH (c)-[:MemberOf]->(g) ... MATCH (n:Base)`): its candidates
        # are its own nodes whenever the earlier clauses give a row at all, one row of which is enough. Each
        # earlier row would otherwise bring every node again (4 controllers x 150k nodes, then DISTINCT).
        one = a.With(a.Projection((a.ProjectionItem(a.Literal(1), " any row"),), limit=a.Literal(1)))
        ids = a.Projection((a.ProjectionItem(a.Variable(variable), "id"),))
        return a.Query((a.SingleQuery((*prefix, one, a.Match((pattern,), where), a.Return(ids))),))
    return a.Query((a.SingleQuery((*prefix, a.Match((pattern,), where), a.Return(ids))),))


def _one_earlier_row_enough(prefix: tuple[a.Clause, ...], bound: Sequence[str], variable: str,
                            where: a.Expr | None, node: a.NodePattern) -> bool:
    """Whether the end's candidates depend on the earlier clauses only by whether they give a row: the end is
    new, and neither its conditions nor its property map name a variable bound before."""
    used = (free_variables(where) if where is not None else set()) | _map_variables(node)
    return bool(prefix) and variable not in bound and not used & set(bound)


def _unequal(term: a.Expr, variable: str, other: str) -> bool:
    """Whether `term` is `variable <> other` (either way round, or as NOT ... = ...)."""
    if isinstance(term, a.Unary) and term.op == "NOT" and isinstance(term.operand, a.Binary) \
            and term.operand.op == "=":
        sides = (term.operand.left, term.operand.right)
    elif isinstance(term, a.Binary) and term.op == "<>":
        sides = (term.left, term.right)
    else:
        return False
    return {side.name if isinstance(side, a.Variable) else None for side in sides} == {variable, other}


def _map_variables(node: a.NodePattern) -> set[str]:
    return free_variables(node.properties) if node.properties is not None else set()


def shortest_part(st: Translation, frm: From, scope: Scope, part: a.PatternPart) -> list[tuple[a.RelPattern, Typed]]:
    """Joins the found paths of the pattern (the next of `st.shortest`) to `frm`."""
    if len(part.rels) == 1 and not st.top_match:
        raise UnsupportedCypher(f"{part.shortest} inside a subquery")
    _bounds(part)
    key = st.shortest_seen
    st.shortest_seen += 1
    if key not in st.shortest:
        raise LookupError(f"the paths of shortest path pattern {key} were not searched")
    rel = part.rels[0]
    left = pt.node(st, frm, scope, part.nodes[0])
    right = pt.node(st, frm, scope, part.nodes[1])
    found = st.shortest[key]
    alias = st.aliases.new("sp")
    starts = st.params.add(int_array(p[0] for p in found), "bigint[]")
    ends = st.params.add(int_array(p[1] for p in found), "bigint[]")
    paths = st.params.add(int_arrays(p[2] for p in found), "text[]")
    frm.join(f"CROSS JOIN (SELECT s, t, path::bigint[] AS path FROM unnest({starts}, {ends}, {paths}) "
             f"AS u(s, t, path)) AS {alias}")
    frm.where.append(f"{alias}.s = {left.sql} AND {alias}.t = {right.sql}")
    value = Typed(f"hg_path_edges({alias}.path)", T.RELS)
    if rel.variable is not None:
        scope.bind(rel.variable, value)
    if part.variable is not None:
        pt.refuse_bound_path(scope, part.variable)
        scope.bind(part.variable, Typed(f"{alias}.path", T.PATH))
    return [(rel, value)]
