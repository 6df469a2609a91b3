"""What a query answered as a graph may skip: the rows' multiplicity, where nothing after can see it.

The Cypher route answers with the nodes and edges its rows name, collected by id (as the reference's unified
graph does), and with the rows' other values (lists of entities included) as literals. When every returned column
is a node, a relationship or a path, the answer depends only on the *set* of rows, not on how often each row
comes. If, moreover, every clause after a point computes a set of rows from the set of rows it reads
(matching, unwinding, projecting, grouping with min/max/DISTINCT aggregates, or a `collect()` whose list is
only unwound or returned), a clause at that point may return its rows once each instead of once per way they
were found. Three rewrites use this:

- **reach**: a variable-length relationship with no relationship or path variable, followed in one direction
  from at most one hop, walks the nodes reachable from its anchor (each once) instead of every trail (one row
  per trail: 871,874 for "Kerberoastable users with admin rights", whose answer is 232 users). A trail of at
  least one hop exists from a to b exactly when a directed walk does (a shortest walk is a path, a shortest
  closed walk a cycle). Not for undirected walks (back and forth over one edge is a walk, not a trail), nor
  from two hops on, nor where another relationship of the MATCH could share an edge with it (relationship
  uniqueness would need the trail's edges).
- **first element**: `UNWIND list AS x` where nothing after reads `x` keeps a row exactly when the list is
  not empty: it takes one element.
- **first match**: an OPTIONAL MATCH whose new variables are read only in `collect()`s whose lists are only
  unwound that way (`WITH u, collect(c1) + collect(c2) AS l UNWIND l AS x RETURN u`) needs only whether
  each row has a match: it takes one.

With any of them the final RETURN is DISTINCT, so that the row budget counts the rows of the answer.
A query whose final RETURN is DISTINCT, or groups with `min`, `max` or DISTINCT aggregates only, gives the same
rows either way (`RETURN DISTINCT n.objectid`, `RETURN count(DISTINCT n)`): it may return scalars too. A query
that counts, sums, limits or returns other scalars sees multiplicity and keeps every row.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.validate import walk

# Every aggregate function (as functions.AGGREGATES, which imports the translation state that imports this).
_AGGREGATES = frozenset({"count", "collect", "min", "max", "sum", "avg"})
# Aggregates whose value depends only on the set of values they read.
_SET_AGGREGATES = frozenset({"min", "max"})
# What a star projection reads: every variable in scope.
_EVERYTHING = " *"


@dataclass(frozen=True)
class SetAnswer:
    """The rewrites chosen, by the identity of the AST node they apply to."""

    reach: frozenset[int] = frozenset()  # RelPattern
    first_element: frozenset[int] = frozenset()  # Unwind
    first_match: frozenset[int] = frozenset()  # Match (OPTIONAL)
    distinct: frozenset[int] = frozenset()  # Projection of a final RETURN
    # Whether the rows themselves stay the same (every final RETURN is DISTINCT or groups with set aggregates
    # only): then they may hold scalars too.
    exact: bool = False

    def __bool__(self) -> bool:
        return bool(self.reach or self.first_element or self.first_match)


NONE = SetAnswer()


def plan(query: a.Query) -> SetAnswer:
    """The rewrites `query` allows if its answer is a graph (every returned column a graph value: the
    translator checks that). Queries with shortestPath patterns are left alone: their searches count rows."""
    if any(isinstance(node, a.PatternPart) and node.shortest is not None for node in walk(query)):
        return NONE
    reach: set[int] = set()
    first_element: set[int] = set()
    first_match: set[int] = set()
    distinct: set[int] = set()
    exact = True
    for part in query.parts:
        _plan_part(part.clauses, reach, first_element, first_match)
        last = part.clauses[-1] if part.clauses else None
        if isinstance(last, a.Return) and not last.projection.order:
            # (SELECT DISTINCT cannot order by what it does not select; a graph answer has no order anyway.)
            distinct.add(id(last.projection))
        exact = exact and isinstance(last, a.Return) and _rows_once(last.projection) and not _collects(part.clauses)
    found = SetAnswer(frozenset(reach), frozenset(first_element), frozenset(first_match), frozenset(distinct),
                      exact)
    return found if found else NONE


def _rows_once(projection: a.Projection) -> bool:
    """Whether a final RETURN gives each of its rows once, however often its input rows come: DISTINCT, or
    grouping with aggregates of sets only, and no SKIP or LIMIT (which would pick among repetitions)."""
    if projection.skip is not None or projection.limit is not None or projection.star:
        return False
    calls = [call for item in projection.items for call in _aggregates(item.expression)]
    return all(_set_aggregate(call) for call in calls) and (projection.distinct or bool(calls))


def _collects(clauses: Sequence[a.Clause]) -> bool:
    """Whether a projection of the clauses aggregates other than by set (a collected list may be returned)."""
    return any(not _set_aggregate(call) for clause in clauses if isinstance(clause, a.With | a.Return)
               for item in clause.projection.items for call in _aggregates(item.expression))


def _plan_part(clauses: Sequence[a.Clause], reach: set[int], first_element: set[int], first_match: set[int]) -> None:
    if not clauses or not isinstance(clauses[-1], a.Return):
        return
    # set_after[i]: every clause after i reads only the set of its input rows.
    set_after = [False] * len(clauses)
    ok = True
    for index in range(len(clauses) - 1, -1, -1):
        set_after[index] = ok
        ok = ok and _set_determined(clauses, index)
    for index, clause in enumerate(clauses):
        if set_after[index] and isinstance(clause, a.Unwind) and not _read({clause.variable}, clauses[index + 1:]):
            first_element.add(id(clause))
    for index, clause in enumerate(clauses):
        if not set_after[index] or not isinstance(clause, a.Match):
            continue
        reach.update(id(rel) for rel in _reachable(clause))
        if clause.optional and _only_existence(clauses, index, first_element):
            first_match.add(id(clause))


def _set_determined(clauses: Sequence[a.Clause], index: int) -> bool:
    """Whether clause `index` computes the set of its output rows from the set of its input rows."""
    clause = clauses[index]
    if isinstance(clause, a.Match | a.Unwind):
        return True
    if not isinstance(clause, a.With | a.Return):
        return False
    projection = clause.projection
    if projection.skip is not None or projection.limit is not None:
        return False
    if any(_aggregates(sort.expression) for sort in projection.order):
        return False
    for item in projection.items:
        if all(_set_aggregate(call) for call in _aggregates(item.expression)):
            continue
        # A list of collect()s: its elements are a set's, their repetitions are not; fine where it is only
        # unwound or passed on.
        if (not _collect_sum(item.expression) or not _only_unwound_or_passed(item.alias, clauses[index + 1:])
                or _read({item.alias}, _own_filters(clause))):
            return False
    return True


def _own_filters(clause: a.With | a.Return) -> list[object]:
    """What a projection clause reads of its own items: its ORDER BY and (WITH) its WHERE."""
    where = clause.where if isinstance(clause, a.With) else None
    return [where, tuple(sort.expression for sort in clause.projection.order)]


def _aggregates(e: object) -> list[a.Expr]:
    return [node for node in walk(e) if isinstance(node, a.CountStar)
            or (isinstance(node, a.FunctionCall) and node.name in _AGGREGATES)]


def _set_aggregate(call: a.Expr) -> bool:
    if not isinstance(call, a.FunctionCall):
        return False
    # Not collect(DISTINCT x): its list's order follows the rows'.
    return call.name in _SET_AGGREGATES or (call.distinct and call.name == "count")


def _collect_sum(e: a.Expr, of_variables: bool = False) -> bool:
    """`collect(x)`, or a sum of them (list concatenation); with `of_variables`, each `x` a variable."""
    if isinstance(e, a.Binary) and e.op == "+":
        return _collect_sum(e.left, of_variables) and _collect_sum(e.right, of_variables)
    if not (isinstance(e, a.FunctionCall) and e.name == "collect" and len(e.args) == 1):
        return False
    return isinstance(e.args[0], a.Variable) if of_variables else not _aggregates(e.args[0])


def _only_unwound_or_passed(name: str, later: Sequence[a.Clause]) -> bool:
    """Whether every later mention of `name` unwinds it, or passes it on under its own name (WITH l, RETURN l)."""
    allowed = 0
    for clause in later:
        if isinstance(clause, a.Unwind) and clause.expression == a.Variable(name):
            allowed += 1
        elif isinstance(clause, a.With | a.Return):
            # The variable and the item's alias.
            allowed += 2 * sum(1 for item in clause.projection.items
                               if item.expression == a.Variable(name) and item.alias == name)
    return _mentions(name, later) == allowed


def _only_existence(clauses: Sequence[a.Clause], index: int, first_element: set[int]) -> bool:
    """Whether the OPTIONAL MATCH at `index` matters only by whether it matches, for each row: its new
    variables are read nowhere but as `collect(v)` in the next WITH, whose lists only feed UNWINDs that take one
    element (`first_element`). Each row then has a match exactly when it has one with `v` not null."""
    clause = clauses[index]
    assert isinstance(clause, a.Match)
    new = _pattern_names(clause) - _scope_before(clauses, index)
    grouping_at = next((i for i in range(index + 1, len(clauses)) if isinstance(clauses[i], a.With)), None)
    if not new or grouping_at is None:
        return False
    grouping = clauses[grouping_at]
    assert isinstance(grouping, a.With)
    after = clauses[grouping_at + 1:]
    if grouping.projection.star or _read(new, clauses[index + 1:grouping_at]) or _read(new, after):
        return False
    for item in grouping.projection.items:
        if not _read(new, [item.expression]):
            continue
        if not _collect_sum(item.expression, of_variables=True):
            return False
        uses = [c for c in after if isinstance(c, a.Unwind) and c.expression == a.Variable(item.alias)]
        if (_mentions(item.alias, after) != len(uses) or not all(id(c) in first_element for c in uses)
                or _read(new | {item.alias}, _own_filters(grouping))):
            return False
    return True


def _reachable(clause: a.Match) -> list[a.RelPattern]:
    """The variable-length relationships of `clause` that may walk reachable nodes instead of trails."""
    rels = [rel for part in clause.patterns for rel in part.rels]
    found = []
    for part in clause.patterns:
        if part.variable is not None or part.shortest is not None:
            continue
        for rel in part.rels:
            # An untyped walk may share an edge with any other relationship of the MATCH (relationship
            # uniqueness), so it walks reachable nodes only when it is the MATCH's one relationship.
            if (rel.length is None or rel.variable is not None or rel.direction is a.Direction.BOTH
                    or (rel.length[0] or 0) > 1 or (not rel.types and len(rels) > 1)):
                continue
            if all(other is rel or (other.types and not set(other.types) & set(rel.types)) for other in rels):
                found.append(rel)
    return found


def _scope_before(clauses: Sequence[a.Clause], index: int) -> set[str]:
    """The variables surely bound when clause `index` starts (fewer is safe: more variables count as new)."""
    scope: set[str] = set()
    for clause in clauses[:index]:
        if isinstance(clause, a.Match):
            scope |= _pattern_names(clause)
        elif isinstance(clause, a.Unwind):
            scope.add(clause.variable)
        elif isinstance(clause, a.With):
            aliases = {item.alias for item in clause.projection.items}
            scope = scope | aliases if clause.projection.star else aliases
        else:
            scope = set()
    return scope


def _pattern_names(clause: a.Match) -> set[str]:
    names: set[str] = set()
    for part in clause.patterns:
        found = [part.variable, *(node.variable for node in part.nodes), *(rel.variable for rel in part.rels)]
        names.update(name for name in found if name is not None)
    return names


def _read(names: set[str], where: Sequence[object]) -> bool:
    """Whether anything in `where` mentions one of `names` (or every name, by a star projection)."""
    return any(mentioned in names or mentioned == _EVERYTHING for node in walk(tuple(where))
               for mentioned in _node_names(node))


def _mentions(name: str, clauses: Sequence[a.Clause]) -> int:
    """How often the clauses mention `name` (a star projection counts as one mention of every name)."""
    return sum(1 for node in walk(tuple(clauses)) for mentioned in _node_names(node)
               if mentioned in (name, _EVERYTHING))


def _node_names(node: object) -> Iterator[str]:
    """The variable names an AST node reads or binds."""
    if isinstance(node, a.Variable):
        yield node.name
    elif isinstance(node, a.NodePattern | a.RelPattern | a.PatternPart):
        if node.variable is not None:
            yield node.variable
    elif isinstance(node, a.PatternComprehension):
        if node.path_variable is not None:
            yield node.path_variable
    elif isinstance(node, a.Unwind | a.ListComprehension | a.Quantifier):
        yield node.variable
    elif isinstance(node, a.MapProjection):
        yield node.variable
    elif isinstance(node, a.Reduce):
        yield node.accumulator
        yield node.variable
    elif isinstance(node, a.Projection) and node.star:
        yield _EVERYTHING
    elif isinstance(node, a.ProjectionItem):
        yield node.alias
