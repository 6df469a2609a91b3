"""Cypher text -> our AST, through the ANTLR parser generated from grammar/Cypher.g4.

Parses with the fast SLL prediction mode and a strategy that gives up at the first error, and parses again
with full LL and the default strategy only then (the two-stage strategy ANTLR recommends): a valid query never
pays for the slow mode, and the default strategy's check before every loop and optional part (about a fifth of
a parse in the Python runtime) is skipped where no error message is to be written.
Procedure calls and `$parameters` are refused here, as the reference does at parse time.
"""

from __future__ import annotations

import dataclasses
import re
from functools import lru_cache
from typing import Any

from antlr4 import CommonTokenStream, InputStream, ParserRuleContext
from antlr4.atn.PredictionMode import PredictionMode
from antlr4.error.ErrorListener import ErrorListener
from antlr4.error.Errors import ParseCancellationException
from antlr4.error.ErrorStrategy import BailErrorStrategy
from antlr4.tree.Tree import TerminalNode

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import (
    PARAMETERS_NOT_SUPPORTED,
    PROCEDURES_NOT_SUPPORTED,
    CypherError,
    CypherSemanticError,
    CypherSyntaxError,
    UnsupportedCypher,
)
from houndgraph.graph.cypher.grammar.CypherLexer import CypherLexer
from houndgraph.graph.cypher.grammar.CypherParser import CypherParser as P
from houndgraph.graph.cypher.parse_literals import NUL_IN_STRING, LiteralBuilder
from houndgraph.graph.cypher.parse_operators import OperatorBuilder
from houndgraph.graph.cypher.parse_patterns import PatternBuilder

MAX_QUERY_LENGTH = 100_000
# The parser recurses about fifteen Python frames per bracket: past ~60 levels it meets the recursion limit. 40 is
# the deepest the TCK nests (a list, a map).
MAX_NESTING = 40
TOO_DEEP = f"query nests brackets deeper than {MAX_NESTING} levels"
# Operators nest without brackets (`1 + 1 + ... + 1`, a chain of NOT): the syntax tree of such a query is as deep
# as its chain is long, and the steps after parsing (validation, translation) recurse through it, two or three
# frames a level. 200 levels is far past any real query (the deepest of the query corpus is 19, of the TCK's 46: a
# list 40 deep) and well inside the recursion limit.
MAX_SYNTAX_DEPTH = 200
TOO_DEEP_SYNTAX = f"query nests expressions deeper than {MAX_SYNTAX_DEPTH} levels"


class _RaiseOnError(ErrorListener):  # type: ignore[misc]  # the ANTLR runtime has no type information
    def syntaxError(self, recognizer: Any, offendingSymbol: Any, line: int, column: int,  # noqa: N802, N803
                    msg: str, e: Any) -> None:
        raise CypherSyntaxError(f"line {line}:{column} {msg}")


def _parse_tree(text: str, fast: bool) -> P.OC_CypherContext:
    lexer = CypherLexer(InputStream(text))
    lexer.removeErrorListeners()
    lexer.addErrorListener(_RaiseOnError())
    parser = P(CommonTokenStream(lexer))
    parser.removeErrorListeners()
    parser.addErrorListener(_RaiseOnError())
    if fast:
        parser._errHandler = BailErrorStrategy()
        parser._interp.predictionMode = PredictionMode.SLL
    else:
        parser._interp.predictionMode = PredictionMode.LL
    return parser.oC_Cypher()


@lru_cache(maxsize=512)
def parse(text: str) -> a.Query:
    """Parse one query; cached because saved queries and selectors run the same text again and again."""
    if len(text) > MAX_QUERY_LENGTH:
        raise CypherError(f"query is longer than {MAX_QUERY_LENGTH} characters")
    if "\x00" in text:
        raise CypherSyntaxError(NUL_IN_STRING)
    if nesting_depth(text) > MAX_NESTING:
        raise CypherSyntaxError(TOO_DEEP)
    try:
        try:
            tree = _parse_tree(text, fast=True)
        except (CypherSyntaxError, ParseCancellationException):
            tree = _parse_tree(text, fast=False)
        query = _Builder(text).query(tree.oC_RegularQuery())
    except RecursionError:  # a nesting the bracket count does not see, such as a long chain of NOT
        raise CypherSyntaxError(TOO_DEEP) from None
    if syntax_depth(query) > MAX_SYNTAX_DEPTH:
        raise CypherSyntaxError(TOO_DEEP_SYNTAX)
    return query


def syntax_depth(root: object) -> int:
    """How deep the syntax tree under `root` is, counting its nodes (the frozen dataclasses of `ast`) and the
    tuples that hold them; walked with a stack of its own, so a tree of any depth is measured."""
    deepest = 0
    stack: list[tuple[object, int]] = [(root, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(item, tuple):
            stack.extend((child, depth) for child in item)
        elif dataclasses.is_dataclass(item):
            stack.extend((getattr(item, f.name), depth + 1) for f in dataclasses.fields(item))
    return deepest


_SKIPPED = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`[^`]*`|//[^\n]*|/\*.*?\*/""", re.DOTALL)
_BRACKETS = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}


def nesting_depth(text: str) -> int:
    """How deeply brackets nest in a query, outside strings, quoted names and comments."""
    depth = deepest = 0
    for char in _SKIPPED.sub("", text):
        step = _BRACKETS.get(char)
        if step:
            depth += step
            deepest = max(deepest, depth)
    return deepest


class _Builder(OperatorBuilder, PatternBuilder, LiteralBuilder):
    """Walks the parse tree; one method per grammar rule that carries meaning."""

    def __init__(self, text: str) -> None:
        self.text = text

    def source(self, ctx: ParserRuleContext) -> str:
        return self.text[ctx.start.start: ctx.stop.stop + 1]

    # -- queries and clauses ------------------------------------------------------------------

    def query(self, ctx: P.OC_RegularQueryContext) -> a.Query:
        parts = [self.single(ctx.oC_SingleQuery())]
        union_all = []
        for union in ctx.oC_Union():
            parts.append(self.single(union.oC_SingleQuery()))
            union_all.append(union.ALL() is not None)
        return a.Query(tuple(parts), tuple(union_all))

    def single(self, ctx: P.OC_SingleQueryContext) -> a.SingleQuery:
        return a.SingleQuery(tuple(self.clause(c) for c in ctx.oC_Clause()))

    def clause(self, ctx: P.OC_ClauseContext) -> a.Clause:
        if (m := ctx.oC_Match()) is not None:
            return a.Match(self.patterns(m.oC_Pattern()), self.where(m.oC_Where()), m.OPTIONAL() is not None)
        if (u := ctx.oC_Unwind()) is not None:
            return a.Unwind(self.expr(u.oC_Expression()), self.variable(u.oC_Variable()))
        if (w := ctx.oC_With()) is not None:
            return a.With(self.projection(w.oC_ProjectionBody()), self.where(w.oC_Where()))
        if (r := ctx.oC_Return()) is not None:
            return a.Return(self.projection(r.oC_ProjectionBody()))
        if (s := ctx.oC_SubqueryCall()) is not None:
            return a.CallSubquery(self.query(s.oC_RegularQuery()))
        if ctx.oC_ProcedureCall() is not None:
            raise CypherError(PROCEDURES_NOT_SUPPORTED)
        if (c := ctx.oC_Create()) is not None:
            return a.Create(self.patterns(c.oC_Pattern()))
        if (mg := ctx.oC_Merge()) is not None:
            on_create: list[a.SetItem] = []
            on_match: list[a.SetItem] = []
            for action in mg.oC_MergeAction():
                target = on_create if action.CREATE() is not None else on_match
                target.extend(self.set_items(action.oC_Set()))
            return a.Merge(self.pattern_part(mg.oC_PatternPart()), tuple(on_create), tuple(on_match))
        if (st := ctx.oC_Set()) is not None:
            return a.SetClause(tuple(self.set_items(st)))
        if (d := ctx.oC_Delete()) is not None:
            return a.Delete(tuple(self.expr(e) for e in d.oC_Expression()), d.DETACH() is not None)
        if (rm := ctx.oC_Remove()) is not None:
            items = []
            for item in rm.oC_RemoveItem():
                if item.oC_PropertyExpression() is not None:
                    items.append(a.SetItem("property", self.property_expression(item.oC_PropertyExpression())))
                else:
                    labels = tuple(lbl for group in self.labels(item.oC_NodeLabels()) for lbl in group)
                    items.append(a.SetItem("labels", a.Variable(self.variable(item.oC_Variable())),
                                           labels=labels))
            return a.Remove(tuple(items))
        raise UnsupportedCypher("FOREACH")

    def set_items(self, ctx: P.OC_SetContext) -> list[a.SetItem]:
        items = []
        for item in ctx.oC_SetItem():
            if item.oC_PropertyExpression() is not None:
                items.append(a.SetItem("property", self.property_expression(item.oC_PropertyExpression()),
                                       self.expr(item.oC_Expression())))
            elif item.oC_NodeLabels() is not None:
                labels = tuple(lbl for group in self.labels(item.oC_NodeLabels()) for lbl in group)
                items.append(a.SetItem("labels", a.Variable(self.variable(item.oC_Variable())), labels=labels))
            else:
                kind = "merge" if any(isinstance(c, TerminalNode) and c.getText() == "+=" for c in item.children) \
                    else "replace"
                items.append(a.SetItem(kind, a.Variable(self.variable(item.oC_Variable())),
                                       self.expr(item.oC_Expression())))
        return items

    def property_expression(self, ctx: P.OC_PropertyExpressionContext) -> a.Expr:
        result = self.atom(ctx.oC_Atom())
        for lookup in ctx.oC_PropertyLookup():
            result = a.Property(result, self.schema_name(lookup.oC_SchemaName()))
        return result

    def where(self, ctx: P.OC_WhereContext | None) -> a.Expr | None:
        return None if ctx is None else self.expr(ctx.oC_Expression())

    def projection(self, ctx: P.OC_ProjectionBodyContext) -> a.Projection:
        items_ctx = ctx.oC_ProjectionItems()
        star = any(isinstance(c, TerminalNode) and c.getText() == "*" for c in items_ctx.children)
        items = []
        for item in items_ctx.oC_ProjectionItem():
            expression = self.expr(item.oC_Expression())
            aliased = item.oC_Variable() is not None
            alias = self.variable(item.oC_Variable()) if aliased else self.source(item.oC_Expression())
            items.append(a.ProjectionItem(expression, alias, aliased))
        order: tuple[a.SortItem, ...] = ()
        if (o := ctx.oC_Order()) is not None:
            order = tuple(
                a.SortItem(self.expr(s.oC_Expression()), s.DESC() is not None or s.DESCENDING() is not None)
                for s in o.oC_SortItem()
            )
        skip = self.expr(ctx.oC_Skip().oC_Expression()) if ctx.oC_Skip() is not None else None
        limit = self.expr(ctx.oC_Limit().oC_Expression()) if ctx.oC_Limit() is not None else None
        return a.Projection(tuple(items), star, ctx.DISTINCT() is not None, order, skip, limit)

    # -- names ------------------------------------------------------------------------------------

    def variable(self, ctx: P.OC_VariableContext) -> str:
        return self.symbolic_name(ctx.oC_SymbolicName())

    def symbolic_name(self, ctx: P.OC_SymbolicNameContext) -> str:
        text: str = ctx.getText()
        if text.startswith("`"):
            return text[1:-1].replace("``", "`")
        return text

    def schema_name(self, ctx: P.OC_SchemaNameContext) -> str:
        if ctx.oC_SymbolicName() is not None:
            return self.symbolic_name(ctx.oC_SymbolicName())
        return str(ctx.getText())

    # -- expressions: the operators in parse_operators, the atoms here ---------------------------

    def atom(self, ctx: P.OC_AtomContext) -> a.Expr:
        if (lit := ctx.oC_Literal()) is not None:
            return self.literal(lit)
        if ctx.oC_Parameter() is not None:
            raise CypherError(PARAMETERS_NOT_SUPPORTED)
        if (v := ctx.oC_Variable()) is not None:
            return a.Variable(self.variable(v))
        if (f := ctx.oC_FunctionInvocation()) is not None:
            return self.function(f)
        if (p := ctx.oC_ParenthesizedExpression()) is not None:
            return self.expr(p.oC_Expression())
        if ctx.COUNT() is not None:
            return a.CountStar()
        if (c := ctx.oC_CaseExpression()) is not None:
            return self.case(c)
        if (lc := ctx.oC_ListComprehension()) is not None:
            f_ctx = lc.oC_FilterExpression()
            var, source, where = self.filter_expression(f_ctx)
            projection = self.expr(lc.oC_Expression()) if lc.oC_Expression() is not None else None
            return a.ListComprehension(var, source, where, projection)
        if (q := ctx.oC_Quantifier()) is not None:
            kind = "all" if q.ALL() else "any" if q.ANY() else "none" if q.NONE() else "single"
            var, source, where = self.filter_expression(q.oC_FilterExpression())
            return a.Quantifier(kind, var, source, where)
        if (r := ctx.oC_Reduce()) is not None:
            id_in = r.oC_IdInColl()
            return a.Reduce(self.variable(r.oC_Variable()), self.expr(r.oC_Expression(0)),
                            self.variable(id_in.oC_Variable()), self.expr(id_in.oC_Expression()),
                            self.expr(r.oC_Expression(1)))
        if (pp := ctx.oC_PatternPredicate()) is not None:
            return a.PatternPredicate(self.relationships_pattern(pp.oC_RelationshipsPattern()))
        if (pc := ctx.oC_PatternComprehension()) is not None:
            path_var = self.variable(pc.oC_Variable()) if pc.oC_Variable() is not None else None
            return a.PatternComprehension(path_var, self.relationships_pattern(pc.oC_RelationshipsPattern()),
                                          self.where(pc.oC_Where()), self.expr(pc.oC_Expression()))
        if (ex := ctx.oC_ExistentialSubquery()) is not None:
            return self.subquery("exists", ex)
        if (cs := ctx.oC_CountSubquery()) is not None:
            return self.subquery("count", cs)
        if (mp := ctx.oC_MapProjection()) is not None:
            return self.map_projection(mp)
        if ctx.oC_ShortestPathPattern() is not None:
            raise UnsupportedCypher("shortestPath outside MATCH")
        raise CypherSemanticError(f"unexpected expression {ctx.getText()}")

    def filter_expression(self, ctx: P.OC_FilterExpressionContext) -> tuple[str, a.Expr, a.Expr | None]:
        id_in = ctx.oC_IdInColl()
        return self.variable(id_in.oC_Variable()), self.expr(id_in.oC_Expression()), self.where(ctx.oC_Where())

    def subquery(self, kind: str, ctx: Any) -> a.Subquery:
        if ctx.oC_RegularQuery() is not None:
            query = self.query(ctx.oC_RegularQuery())
            # EXISTS { MATCH ... } needs no RETURN: each row of the reading clauses counts.
            parts = tuple(
                part if part.clauses and isinstance(part.clauses[-1], a.Return)
                else a.SingleQuery((*part.clauses, a.Return(a.Projection((a.ProjectionItem(a.Literal(1), "1"),)))))
                for part in query.parts
            )
            return a.Subquery(kind, a.Query(parts, query.union_all), (), None)
        return a.Subquery(kind, None, self.patterns(ctx.oC_Pattern()), self.where(ctx.oC_Where()))

    def map_projection(self, ctx: P.OC_MapProjectionContext) -> a.MapProjection:
        items: list[tuple[str, str, a.Expr | None]] = []
        for item in ctx.oC_MapProjectionItem():
            if item.oC_Expression() is not None:
                items.append(("expr", self.schema_name(item.oC_SchemaName()), self.expr(item.oC_Expression())))
            elif item.oC_SchemaName() is not None:
                items.append(("prop", self.schema_name(item.oC_SchemaName()), None))
            elif item.oC_Variable() is not None:
                items.append(("var", self.variable(item.oC_Variable()), None))
            else:
                items.append(("all", "*", None))
        return a.MapProjection(self.variable(ctx.oC_Variable()), tuple(items))

    def function(self, ctx: P.OC_FunctionInvocationContext) -> a.Expr:
        name_ctx = ctx.oC_FunctionName()
        namespace = [self.symbolic_name(s) for s in name_ctx.oC_Namespace().oC_SymbolicName()]
        name = ".".join([*namespace, self.symbolic_name(name_ctx.oC_SymbolicName())]).lower()
        args = tuple(self.expr(e) for e in ctx.oC_Expression())
        return a.FunctionCall(name, args, ctx.DISTINCT() is not None)

    def case(self, ctx: P.OC_CaseExpressionContext) -> a.Case:
        subject = None
        default = None
        for child in ctx.children:
            if isinstance(child, P.OC_ExpressionContext):
                if default is None and subject is None and not any(
                        isinstance(c, P.OC_CaseAlternativeContext) for c in ctx.children[: ctx.children.index(child)]):
                    subject = self.expr(child)
                else:
                    default = self.expr(child)
        whens = tuple((self.expr(w.oC_Expression(0)), self.expr(w.oC_Expression(1)))
                      for w in ctx.oC_CaseAlternative())
        return a.Case(subject, whens, default)
