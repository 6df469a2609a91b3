"""What a MATCH computes once per node row rather than once per pair of rows: the string functions of a node's
properties and the join keys computed from one node, as columns of the node's scan; and the plain jsonb
comparisons a WHERE clause's equalities imply, which the database can hash-join on.
"""

from __future__ import annotations

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.translate import expressions as ex
from houndgraph.graph.cypher.translate import functions as fn
from houndgraph.graph.cypher.translate import shortest as sp
from houndgraph.graph.cypher.translate.planning import where_filters
from houndgraph.graph.cypher.translate.state import Translation
from houndgraph.graph.cypher.translate.values import Scope, T, Typed
from houndgraph.graph.cypher.validate import walk


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


def json_keys(st: Translation, scope: Scope, variable: str, value: Typed, keys: list[a.Expr]) -> dict[a.Expr, str]:
    """The SQL of the join keys that are scalars (jsonb), by key: a key of another type (a boolean, a datetime)
    keeps its own form, which other conditions compare by its type."""
    local = scope.child()
    local.bind(variable, value)
    compiled = {key: ex.expr(st, key, local) for key in keys}
    return {key: typed.sql for key, typed in compiled.items() if typed.type is T.JSON}
