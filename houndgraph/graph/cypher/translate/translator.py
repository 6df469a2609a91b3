"""A validated query -> one parameterised PostgreSQL statement.

Each query part (the reading clauses up to a WITH or RETURN) is one SELECT over a FROM list that
grows clause by clause; a WITH closes it into a derived table that the next part reads from.
UNION parts are joined with UNION / UNION ALL; CALL { } and EXISTS { } subqueries are LATERAL /
correlated subqueries compiled by the same code with the outer variables in scope.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import CypherSemanticError, UnsupportedCypher
from houndgraph.graph.cypher.statistics import KindStatistics
from houndgraph.graph.cypher.temporal.values import is_temporal
from houndgraph.graph.cypher.translate import expressions as ex
from houndgraph.graph.cypher.translate import functions as fn
from houndgraph.graph.cypher.translate import patterns as pt
from houndgraph.graph.cypher.translate import projections as pr
from houndgraph.graph.cypher.translate import set_answer
from houndgraph.graph.cypher.translate.state import FoundPath, Translation
from houndgraph.graph.cypher.translate.values import NOT_CONSTANT, From, Inputs, Scope, T, Typed, as_json
from houndgraph.graph.cypher.validate import walk

Columns = list[tuple[str, T]]


@dataclass(frozen=True)
class Statement:
    sql: str
    params: dict[str, object]
    # The result columns in order: the Cypher name and how the SQL value represents it.
    columns: tuple[tuple[str, T], ...]


# The values a graph answer is made of (the nodes and edges they name); any other column, lists of entities
# included, is a literal (graph_query/literals.py), whose rows' repetitions and order the answer shows.
GRAPH_TYPES = (T.NODE, T.REL, T.PATH)


def translate(query: a.Query, kinds: Mapping[str, int], shortest: Mapping[int, list[FoundPath]] | None = None,
              inputs: Inputs | None = None, stats: KindStatistics | None = None, as_graph: bool = False
              ) -> Statement:
    """`shortest` holds the paths of the query's shortestPath patterns (shortest.requests() lists them);
    `stats`, the graph's kind statistics, lets the planner compare the sizes of a walk's ends. With `as_graph`
    the rows are only read for the nodes and edges they name and the scalars of each row: if every column is a
    graph value, or the final RETURN gives each row once, the rows may come once each rather than once per way
    they were found (set_answer)."""
    if as_graph and inputs is None and (answer := set_answer.plan(query)):
        statement = _translate(query, kinds, shortest, inputs, stats, answer)
        if answer.exact or all(kind in GRAPH_TYPES for _, kind in statement.columns):
            return statement
    return _translate(query, kinds, shortest, inputs, stats, set_answer.NONE)


def _translate(query: a.Query, kinds: Mapping[str, int], shortest: Mapping[int, list[FoundPath]] | None,
               inputs: Inputs | None, stats: KindStatistics | None, answer: set_answer.SetAnswer) -> Statement:
    st = Translation(kinds, shortest or {}, inputs, stats=stats, counted_only=counted_only(query), answer=answer)
    sql, columns = query_sql(st, query, Scope(), top=True)
    if any(kind in (T.DATETIME, T.DURATION) for _, kind in columns):
        # A timestamp or interval leaves as the temporal object a property would store (temporal/stored.sql):
        # Neo4j's text (`Z` for UTC) and a duration's months kept apart.
        outer = [f"{stored_form(Typed(f'answer.c{i}', kind)).sql} AS c{i}" for i, (_, kind) in enumerate(columns)]
        sql = f"SELECT {', '.join(outer)} FROM ({sql}) AS answer"
        columns = [(name, T.JSON if kind in (T.DATETIME, T.DURATION) else kind) for name, kind in columns]
    return Statement(sql, st.params.values, tuple(columns))


def counted_only(query: a.Query) -> frozenset[str]:
    """The variables of one node pattern each that the query names nowhere but as `count(name)`."""
    patterns: Counter[str] = Counter()
    named: Counter[str] = Counter()
    counted: Counter[str] = Counter()
    for node in walk(query):
        if isinstance(node, a.NodePattern) and node.variable is not None:
            patterns[node.variable] += 1
        elif isinstance(node, a.Variable):
            named[node.name] += 1
        elif isinstance(node, a.FunctionCall) and node.name == "count" and len(node.args) == 1 \
                and isinstance(node.args[0], a.Variable):
            counted[node.args[0].name] += 1
    return frozenset(name for name, seen in patterns.items() if seen == 1 and named[name] == counted[name])


def evaluate(expressions: Sequence[a.Expr], kinds: Mapping[str, int], inputs: Inputs) -> tuple[Statement, list[T]]:
    """A SELECT giving, for each input row in order, the value of each expression."""
    st = Translation(kinds, inputs=inputs)
    frm = From()
    scope = Scope().child()
    order = bind_inputs(st, frm, scope)
    values = [stored_form(ex.expr(st, e, scope)) for e in expressions]
    select = ", ".join(f"{value.sql} AS c{i}" for i, value in enumerate(values)) or "1"
    sql = f"SELECT {select} {frm.sql()} ORDER BY {order}"
    return Statement(sql, st.params.values, ()), [value.type for value in values]


def stored_form(value: Typed) -> Typed:
    """A timestamp or interval as the temporal object a property stores; any other value as it is."""
    return as_json(value) if value.type in (T.DATETIME, T.DURATION) else value


def query_sql(st: Translation, query: a.Query, outer: Scope, top: bool) -> tuple[str, Columns]:
    if len(set(query.union_all)) > 1:
        raise CypherSemanticError("UNION and UNION ALL cannot be mixed in one query (InvalidClauseComposition)")
    compiled = [single_sql(st, part, outer, top) for part in query.parts]
    sql, columns = compiled[0]
    if len(compiled) == 1:
        return sql, columns
    parts = [f"({sql})"]
    for (next_sql, next_columns), union_all in zip(compiled[1:], query.union_all, strict=True):
        if [n for n, _ in next_columns] != [n for n, _ in columns]:
            raise CypherSemanticError("All sub queries in an UNION must have the same return column names")
        if [t for _, t in next_columns] != [t for _, t in columns]:
            raise UnsupportedCypher("UNION of columns holding different kinds of values")
        parts.append("UNION ALL" if union_all else "UNION")
        parts.append(f"({next_sql})")
    return " ".join(parts), columns


def single_sql(st: Translation, single: a.SingleQuery, outer: Scope, top: bool) -> tuple[str, Columns]:
    clauses = single.clauses
    if not clauses or not isinstance(clauses[-1], a.Return):
        if any(isinstance(c, a.UPDATING_CLAUSES) for c in clauses):
            raise UnsupportedCypher("updating clauses (CREATE, MERGE, SET, REMOVE, DELETE)")
        raise CypherSemanticError("Query cannot conclude with " + type(clauses[-1]).__name__.upper()
                                  + " (must be a RETURN clause)")
    frm = From()
    scope = outer.child()
    if top and st.inputs is not None:
        bind_inputs(st, frm, scope)
    for index, clause in enumerate(clauses):
        if isinstance(clause, a.Match):
            with st.within(top_match=top):
                pt.match(st, frm, scope, clause)
        elif isinstance(clause, a.Unwind):
            unwind(st, frm, scope, clause)
        elif isinstance(clause, a.CallSubquery):
            call_subquery(st, frm, scope, clause)
        elif isinstance(clause, a.With):
            frm, scope = with_clause(st, frm, scope, outer, clause)
        elif isinstance(clause, a.Return):
            if index != len(clauses) - 1:
                raise CypherSemanticError("RETURN can only be used at the end of the query")
            return pr.projection_sql(st, frm, scope, clause.projection)
        elif isinstance(clause, a.UPDATING_CLAUSES):
            raise UnsupportedCypher("updating clauses (CREATE, MERGE, SET, REMOVE, DELETE)")
        else:
            raise UnsupportedCypher(type(clause).__name__)
    raise CypherSemanticError("query without RETURN")


def with_clause(st: Translation, frm: From, scope: Scope, outer: Scope, clause: a.With) -> tuple[From, Scope]:
    """Closes the query part into a derived table: the FROM list and scope the next part starts from."""
    for item in clause.projection.items:
        if not item.aliased and not isinstance(item.expression, a.Variable):
            raise CypherSemanticError(f"Expression in WITH must be aliased (use AS): {item.alias} "
                                      "(NoExpressionAlias)")
    items = pr.projection_items(scope, clause.projection, carry_nothing=True)
    hidden: list[str] = []
    if clause.where is not None:
        closing = clause.projection.distinct or any(fn.contains_aggregate(item.expression) for item in items)
        hidden = pr.hidden_reads(clause.where, items, scope, closing)
    select, columns = pr.projection_sql(st, frm, scope, clause.projection, hidden, carry_nothing=True)
    alias = st.aliases.new("w")
    frm = From([f"({select}) AS {alias}"])
    scope = outer.child()
    bind_columns(st, frm, scope, alias, columns)
    for (name, _), value in zip(columns, st.projected_constants, strict=True):
        if value is not NOT_CONSTANT:
            # A value computed while translating is the same on every row: later expressions may read it.
            bound = scope.lookup(name)
            scope.bind(name, Typed(bound.sql, bound.type, bound.alias, value))
            st.temporal_bound = st.temporal_bound or is_temporal(value)
    if clause.where is not None:
        # The WHERE reads the projected expressions from their columns, and the variables it carries (hidden).
        where_scope = scope.child()
        for name in hidden:
            where_scope.bind(name, scope.lookup(f" {name}"))
        frm.where.append(ex.pred(st, pr.projected_reads(clause.where, items, where_scope), where_scope))
    return frm, scope


def bind_columns(st: Translation, frm: From, scope: Scope, alias: str, columns: Columns) -> None:
    """Binds the columns c0, c1, ... of the subquery `alias` to their Cypher names."""
    for index, (name, kind) in enumerate(columns):
        scope.bind(name, pt.rebind(st, frm, f"{alias}.c{index}", kind))


def bind_inputs(st: Translation, frm: From, scope: Scope) -> str:
    """Start `frm` from the input rows and bind their columns in `scope`; returns the SQL of each
    row's position, by which an evaluation keeps the input order."""
    assert st.inputs is not None
    alias = st.aliases.new("in")
    rows = st.params.json(st.inputs.encoded())
    frm.items[0] = f"jsonb_array_elements({rows}) WITH ORDINALITY AS {alias}(r, ord)"
    for index, (name, kind) in enumerate(st.inputs.columns):
        scope.bind(name, pt.rebind(st, frm, Inputs.decode(f"{alias}.r->{index}", kind), kind))
    return f"{alias}.ord"


def unwind(st: Translation, frm: From, scope: Scope, clause: a.Unwind) -> None:
    values = ex.expr(st, clause.expression, scope)
    alias = st.aliases.new("u")
    # Where nothing after reads the element, one stands for all (set_answer: the row stays if the list has any).
    first = id(clause) in st.answer.first_element
    if values.type in (T.NODES, T.RELS, T.PATHS):
        elements = f"unnest({values.sql})" if values.type is not T.PATHS else f"jsonb_array_elements({values.sql})"
        if first:
            elements = f"(SELECT * FROM {elements} LIMIT 1)"
        frm.join(f"CROSS JOIN LATERAL {elements} AS {alias}(v)")
    if values.type in (T.NODES, T.RELS):
        scope.bind(clause.variable, pt.rebind(st, frm, f"{alias}.v", T.NODE if values.type is T.NODES else T.REL))
        return
    if values.type is T.PATHS:
        scope.bind(clause.variable, Typed(
            f"(SELECT array_agg(pe.id::bigint) FROM jsonb_array_elements_text({alias}.v) AS pe(id))", T.PATH))
        return
    json = as_json(values).sql
    # Each element's text, when it is a string, and the string functions of it (`toLower(word)`) are computed
    # once per element (OFFSET 0 keeps the database from computing them again in every condition of a join:
    # `toLower(word)` against each of 150k nodes was 3.6M lower() calls). The columns no one reads the
    # database leaves out.
    text = "CASE WHEN jsonb_typeof(v) = 'string' THEN v #>> '{}' END"
    functions = dict.fromkeys(fn.STRING_FUNCTIONS.values())
    columns = "".join(f", {fn.string_call(function, text)} AS f{i}" for i, function in enumerate(functions))
    frm.join(
        f"CROSS JOIN LATERAL (SELECT v, {text} AS t{columns} "
        f"FROM jsonb_array_elements(CASE WHEN coalesce({json}, 'null'::jsonb) = 'null'::jsonb "
        f"THEN '[]'::jsonb WHEN jsonb_typeof({json}) = 'array' THEN {json} ELSE jsonb_build_array({json}) END) "
        f"AS {alias}(v) {'LIMIT 1' if first else 'OFFSET 0'}) AS {alias}"
    )
    value = Typed(f"nullif({alias}.v, 'null'::jsonb)", T.JSON)
    st.texts[value.sql] = f"{alias}.t"
    st.text_functions[value.sql] = {function: f"{alias}.f{i}" for i, function in enumerate(functions)}
    scope.bind(clause.variable, value)


def call_subquery(st: Translation, frm: From, scope: Scope, clause: a.CallSubquery) -> None:
    sql, columns = query_sql(st, clause.query, scope, top=False)
    alias = st.aliases.new("q")
    frm.join(f"CROSS JOIN LATERAL ({sql}) AS {alias}")
    bind_columns(st, frm, scope, alias, columns)
