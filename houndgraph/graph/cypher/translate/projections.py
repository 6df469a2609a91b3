"""RETURN and WITH projections -> a SELECT list, GROUP BY, ORDER BY, OFFSET and LIMIT, with Neo4j's rules for
what each part may read.

After an aggregating or DISTINCT projection only its columns remain: its ORDER BY and a WITH's WHERE may read
the projected expressions (read from their columns) and nothing else (UndefinedVariable). What an aggregating
item computes outside its aggregates must come from grouping keys that are a variable or a property of one
(AmbiguousAggregationExpression). A plain WITH's WHERE and ORDER BY may still read the variables before it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import fields, is_dataclass, replace

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import CypherSemanticError
from houndgraph.graph.cypher.translate import expressions as ex
from houndgraph.graph.cypher.translate import functions as fn
from houndgraph.graph.cypher.translate.state import Translation
from houndgraph.graph.cypher.translate.values import From, Scope, T, Typed
from houndgraph.graph.cypher.validate import walk

Columns = list[tuple[str, T]]
AMBIGUOUS = ("Aggregation column contains implicit grouping expressions: only variables and properties of them "
             "that are also projected may be read outside the aggregation (AmbiguousAggregationExpression)")


def visible(scope: Scope) -> list[str]:
    names: list[str] = []
    current: Scope | None = scope
    while current is not None:
        names.extend(n for n in current.bindings if not n.startswith(" "))
        current = current.parent
    return names


def projection_items(scope: Scope, projection: a.Projection, carry_nothing: bool = False) -> list[a.ProjectionItem]:
    items: list[a.ProjectionItem] = []
    if projection.star:
        items.extend(a.ProjectionItem(a.Variable(n), n) for n in sorted(set(visible(scope))))
    items.extend(projection.items)
    if not items and not carry_nothing:
        raise CypherSemanticError("RETURN * is not allowed when there are no variables in scope")
    # `MATCH () CREATE () WITH * ...`: a WITH may carry its rows and no variable (a hidden column holds them).
    return items or [a.ProjectionItem(a.Literal(True), " rows")]


def projection_sql(st: Translation, frm: From, scope: Scope, projection: a.Projection,
                   hidden: Sequence[str] = (), carry_nothing: bool = False) -> tuple[str, Columns]:
    """The SELECT of a projection and its columns; `hidden` adds the variables of these names as columns ` name`
    (a WITH's WHERE reads them after the projection: hidden_reads). A WITH may `carry_nothing`."""
    items = projection_items(scope, projection, carry_nothing)
    names = [item.alias for item in items]
    if len(set(names)) != len(names):
        raise CypherSemanticError("Multiple result columns with the same name are not supported")
    items += [a.ProjectionItem(a.Variable(name), f" {name}") for name in hidden]
    aggregates = [fn.contains_aggregate(item.expression) for item in items]
    compiled: list[Typed | None] = [None] * len(items)
    for index, item in enumerate(items):
        if not aggregates[index]:
            compiled[index] = ex.expr(st, item.expression, scope)
    keys = _grouping_keys(items, aggregates, compiled)
    for index, item in enumerate(items):
        if aggregates[index]:
            expression, local = _grouped(item.expression, keys, scope)
            if _unaggregated_variables(expression) - {name for name, _ in keys.values()}:
                raise CypherSemanticError(AMBIGUOUS)
            with st.within(aggregating=True):
                compiled[index] = ex.expr(st, expression, local)
    values = [value for value in compiled if value is not None]
    select = ", ".join(f"{value.sql} AS c{i}" for i, value in enumerate(values))
    distinct = projection.distinct or id(projection) in st.answer.distinct
    head, rest = f"SELECT {'DISTINCT ' if distinct else ''}", f" {frm.sql()}"
    if any(aggregates):
        group = [str(i + 1) for i, aggregate in enumerate(aggregates) if not aggregate]
        if group:
            rest += f" GROUP BY {', '.join(group)}"
    sql = head + select + rest
    if projection.order:
        sql = _ordered_sql(st, projection, items, values, scope, any(aggregates), (head, select, rest))
    if projection.skip is not None:
        sql += f" OFFSET {count_expression(st, projection.skip, scope, 'SKIP')}"
    if projection.limit is not None:
        sql += f" LIMIT {count_expression(st, projection.limit, scope, 'LIMIT')}"
    st.projected_constants = [value.constant for value in values]
    return sql, [(item.alias, value.type) for item, value in zip(items, values, strict=True)]


def _grouping_keys(items: Sequence[a.ProjectionItem], aggregates: Sequence[bool],
                   compiled: Sequence[Typed | None]) -> dict[a.Expr, tuple[str, Typed]]:
    """The grouping keys an aggregating item may read (a variable, or a property of one), by expression: the
    hidden name each is bound to and its value as the grouped column computes it."""
    keys: dict[a.Expr, tuple[str, Typed]] = {}
    for index, item in enumerate(items):
        value = compiled[index]
        if not aggregates[index] and value is not None and _simple(item.expression):
            keys[item.expression] = (f" key{index}", value)
    return keys


def _grouped(e: a.Expr, keys: Mapping[a.Expr, tuple[str, Typed]], scope: Scope) -> tuple[a.Expr, Scope]:
    """`e` reading its grouping keys as the grouped columns compute them (the database then sees the grouped
    expressions themselves), and the scope that binds them."""
    if not keys:
        return e, scope
    local = scope.child()
    for name, value in keys.values():
        local.bind(name, value)
    return _replaced_expr(e, {expression: a.Variable(name) for expression, (name, _) in keys.items()}), local


def _simple(e: a.Expr) -> bool:
    return isinstance(e, a.Variable) or (isinstance(e, a.Property) and isinstance(e.subject, a.Variable))


def _aggregate(e: object) -> bool:
    return isinstance(e, a.CountStar) or (isinstance(e, a.FunctionCall) and e.name in fn.AGGREGATES)


def _outside_aggregates(e: object) -> Iterator[object]:
    return walk(e, stop=_aggregate)


def _unaggregated_variables(e: a.Expr) -> set[str]:
    """The variables `e` reads outside its aggregates (not those its comprehensions bind)."""
    parts = list(_outside_aggregates(e))
    bound = {p.variable for p in parts if isinstance(p, a.ListComprehension | a.Quantifier | a.Reduce)}
    bound |= {p.accumulator for p in parts if isinstance(p, a.Reduce)}
    return {p.name for p in parts if isinstance(p, a.Variable)} - bound


def replaced(node: object, mapping: Mapping[a.Expr, a.Expr]) -> object:
    """`node` with each subexpression equal to a key of `mapping` replaced by its value."""
    if isinstance(node, a.Expr) and node in mapping:
        return mapping[node]
    if isinstance(node, tuple):
        return tuple(replaced(item, mapping) for item in node)
    if isinstance(node, a.Expr) and is_dataclass(node):
        changes = {f.name: replaced(getattr(node, f.name), mapping) for f in fields(node)}
        return replace(node, **changes)
    return node


def _replaced_expr(e: a.Expr, mapping: Mapping[a.Expr, a.Expr]) -> a.Expr:
    result = replaced(e, mapping)
    assert isinstance(result, a.Expr)
    return result


def _ordered_sql(st: Translation, projection: a.Projection, items: Sequence[a.ProjectionItem],
                 compiled: list[Typed], scope: Scope, aggregating: bool, parts: tuple[str, str, str]) -> str:
    """The projection's SELECT (`parts`: its head, its columns, its FROM and GROUP BY) sorted by its ORDER BY.

    A sort key that is a jsonb value may be a list, a map or a mix of types, which jsonb orders otherwise than
    Cypher: such a key sorts by hg_order_rank and hg_order_key (helpers.sql) of its value, then by the value. The
    projection then becomes an inner SELECT computing each such value once, as a column, and an outer one sorting
    by the functions of those columns (OFFSET 0 keeps the inner one from being merged into the outer, which would
    compute a value once per function again). So does `RETURN DISTINCT a ORDER BY a.name`, whose sort keys may
    only read the projected columns, so that adding them to the DISTINCT rows leaves those rows as they are
    (SQL's DISTINCT sorts only by what it selects). Other keys sort the SELECT as it is."""
    distinct = projection.distinct and not aggregating
    sorts = [_sort_value(st, sort.expression, items, compiled, scope, aggregating, distinct)
             for sort in projection.order]
    keyed = [value.type is T.JSON and not _scalar_by_form(sort.expression if index is None else items[index].expression)
             for sort, (index, value) in zip(projection.order, sorts, strict=True)]
    head, select, rest = parts
    if not distinct and not any(keyed):
        return head + select + rest + " ORDER BY " + ", ".join(
            (str(index + 1) if index is not None else _selectable(value)) + (" DESC" if sort.descending else "")
            for sort, (index, value) in zip(projection.order, sorts, strict=True))
    keys: list[str] = []
    extra: list[str] = []
    for sort, (index, value), with_key in zip(projection.order, sorts, keyed, strict=True):
        if index is None:
            extra.append(f"{_selectable(value)} AS o{len(extra)}")
            column = f"d.o{len(extra) - 1}"
        else:
            column = f"d.c{index}"
        direction = " DESC" if sort.descending else ""
        if with_key:
            keys += [f"hg_order_rank({column}){direction}", f"hg_order_key({column}){direction}"]
        keys.append(column + direction)
    inner = head + ", ".join([select, *extra]) + rest
    columns = ", ".join(f"d.c{i}" for i in range(len(items)))
    return f"SELECT {columns} FROM ({inner} OFFSET 0) AS d ORDER BY {', '.join(keys)}"


def _scalar_by_form(e: a.Expr) -> bool:
    """Whether `e` is a number, or a string, or null by its form (`count(m)`, `toLower(n.name)`): values of one type
    or null, which jsonb orders as Cypher does."""
    return isinstance(e, a.CountStar) or (isinstance(e, a.FunctionCall) and e.name in fn.SCALAR_FUNCTIONS)


def _selectable(value: Typed) -> str:
    return value.sql if value.type is not T.BOOL else f"({value.sql})"


def _sort_value(st: Translation, e: a.Expr, items: Sequence[a.ProjectionItem], compiled: list[Typed],
                scope: Scope, aggregating: bool, distinct: bool) -> tuple[int | None, Typed]:
    """A sort key: the index of the projected item it names, with that item's value, or None and its value."""
    for index, item in enumerate(items):
        if e == item.expression or e == a.Variable(item.alias):
            return index, compiled[index]
    if distinct:
        projected = Scope({item.alias: value for item, value in zip(items, compiled, strict=True)})
        return None, ex.expr(st, projected_reads(e, items, projected), projected)
    order_scope = Scope() if aggregating else scope.child()
    for item, value in zip(items, compiled, strict=True):
        order_scope.bind(item.alias, value)
    if aggregating:
        e = _aggregated_sort(e, items, order_scope)
    with st.within(aggregating=fn.contains_aggregate(e)):
        return None, ex.expr(st, e, order_scope)


def _aggregated_sort(e: a.Expr, items: Sequence[a.ProjectionItem], projected: Scope) -> a.Expr:
    """A sort key of an aggregating projection, reading only its columns. Where the key aggregates, only the
    projected aggregates and variables or properties of them stand for their columns: Neo4j finds a longer
    projected expression within it ambiguous."""
    aggregates = fn.contains_aggregate(e)
    mapping = {item.expression: a.Variable(item.alias) for item in items
               if not aggregates or fn.contains_aggregate(item.expression) or _simple(item.expression)}
    result = _replaced_expr(e, mapping)
    if aggregates and _unaggregated_variables(e) and any(
            not _simple(item.expression) and not fn.contains_aggregate(item.expression)
            and _contains(e, item.expression) for item in items):
        raise CypherSemanticError(AMBIGUOUS)
    for name in _all_variables(result):
        projected.lookup(name)  # UndefinedVariable: only the columns remain
    return result


def projected_reads(e: a.Expr, items: Sequence[a.ProjectionItem], projected: Scope) -> a.Expr:
    """`e` after a DISTINCT or aggregating projection: its projected expressions read from their columns, any
    other variable undefined (only the columns remain)."""
    result = _replaced_expr(e, _columns_of(items))
    for name in _all_variables(result):
        projected.lookup(name)
    return result


def _columns_of(items: Sequence[a.ProjectionItem]) -> dict[a.Expr, a.Expr]:
    """Each projected expression -> its column, unless it reads a variable that a column renames (`WITH a.x AS a
    WHERE a.x > 1` reads the new `a`)."""
    renamed = {item.alias for item in items if item.expression != a.Variable(item.alias)}
    return {item.expression: a.Variable(item.alias) for item in items
            if item.expression != a.Variable(item.alias) and not _all_variables(item.expression) & renamed}


def _contains(e: a.Expr, part: a.Expr) -> bool:
    return any(node == part for node in _outside_aggregates(e))


def _all_variables(e: a.Expr) -> set[str]:
    """The variables `e` reads (not those its comprehensions bind)."""
    parts = list(walk(e))
    bound = {p.variable for p in parts if isinstance(p, a.ListComprehension | a.Quantifier | a.Reduce)}
    bound |= {p.accumulator for p in parts if isinstance(p, a.Reduce)}
    return {p.name for p in parts if isinstance(p, a.Variable)} - bound


def hidden_reads(where: a.Expr, items: Sequence[a.ProjectionItem], scope: Scope, closing: bool) -> list[str]:
    """The variables before a WITH that its WHERE reads and does not project: carried as hidden columns of a
    plain WITH; after an aggregating or DISTINCT one (`closing`) they are undefined."""
    aliases = {item.alias for item in items}
    rewritten = _replaced_expr(where, _columns_of(items))
    missing = sorted(name for name in _all_variables(rewritten) - aliases if scope.has(name))
    if missing and closing:
        raise CypherSemanticError(f"Variable `{missing[0]}` not defined")
    return missing


def count_expression(st: Translation, e: a.Expr, scope: Scope, clause: str) -> str:
    if isinstance(e, a.Literal):
        if not isinstance(e.value, int) or isinstance(e.value, bool) or e.value < 0:
            raise CypherSemanticError(f"{clause} must be a non-negative integer")
        return st.params.add(e.value, "bigint")
    return f"(({ex.json_sql(st, e, scope)})::numeric)::bigint"
