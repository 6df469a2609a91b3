"""The operator half of the parse-tree walk: an expression from OR down to property lookups and indexing
on an atom, each level of Cypher's precedence one method."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from antlr4 import ParserRuleContext
from antlr4.tree.Tree import TerminalNode

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.grammar.CypherParser import CypherParser as P
from houndgraph.graph.cypher.parse_literals import MAX_INTEGER, too_large


class OperatorBuilder:
    """Mixin for the parse-tree walker; relies on its atom, name and label methods."""

    if TYPE_CHECKING:  # provided by the parse-tree walker that mixes this in
        def atom(self, ctx: Any) -> a.Expr: ...
        def schema_name(self, ctx: Any) -> str: ...
        def labels(self, ctx: Any) -> tuple[tuple[str, ...], ...]: ...
    def expr(self, ctx: P.OC_ExpressionContext) -> a.Expr:
        return self.or_expr(ctx.oC_OrExpression())

    def _chain(self, operands: list[a.Expr], op: str) -> a.Expr:
        result = operands[0]
        for operand in operands[1:]:
            result = a.Binary(op, result, operand)
        return result

    def or_expr(self, ctx: P.OC_OrExpressionContext) -> a.Expr:
        return self._chain([self.xor_expr(x) for x in ctx.oC_XorExpression()], "OR")

    def xor_expr(self, ctx: P.OC_XorExpressionContext) -> a.Expr:
        return self._chain([self.and_expr(x) for x in ctx.oC_AndExpression()], "XOR")

    def and_expr(self, ctx: P.OC_AndExpressionContext) -> a.Expr:
        return self._chain([self.not_expr(x) for x in ctx.oC_NotExpression()], "AND")

    def not_expr(self, ctx: P.OC_NotExpressionContext) -> a.Expr:
        result = self.comparison(ctx.oC_ComparisonExpression())
        for _ in ctx.NOT():
            result = a.Unary("NOT", result)
        return result

    def comparison(self, ctx: P.OC_ComparisonExpressionContext) -> a.Expr:
        left = self.predicate(ctx.oC_StringListNullPredicateExpression())
        partials = ctx.oC_PartialComparisonExpression()
        if not partials:
            return left
        # Chained comparisons (a < b < c) mean (a < b) AND (b < c).
        terms: list[a.Expr] = []
        for partial in partials:
            op = partial.oC_ComparisonOperator().getText()
            right = self.predicate(partial.oC_StringListNullPredicateExpression())
            terms.append(a.Binary("<>" if op == "!=" else op, left, right))
            left = right
        return self._chain(terms, "AND")

    def predicate(self, ctx: P.OC_StringListNullPredicateExpressionContext) -> a.Expr:
        result = self.add_sub(ctx.oC_AddOrSubtractExpression())
        for child in ctx.children[1:]:
            if isinstance(child, P.OC_StringPredicateExpressionContext):
                op_ctx = child.oC_StringOperator()
                op = ("STARTS" if op_ctx.STARTS() else "ENDS" if op_ctx.ENDS() else
                      "CONTAINS" if op_ctx.CONTAINS() else "=~")
                result = a.Binary(op, result, self.add_sub(child.oC_AddOrSubtractExpression()))
            elif isinstance(child, P.OC_ListPredicateExpressionContext):
                result = a.Binary("IN", result, self.add_sub(child.oC_AddOrSubtractExpression()))
            elif isinstance(child, P.OC_NullPredicateExpressionContext):
                result = a.IsNull(result, child.NOT() is not None)
        return result

    def _arith(self, ctx: ParserRuleContext, operand: Any) -> a.Expr:
        result: a.Expr | None = None
        op = None
        for child in ctx.children:
            if isinstance(child, TerminalNode):
                op = child.getText()
            else:
                value = operand(child)
                result = value if result is None else a.Binary(op or "", result, value)
        assert result is not None
        return result

    def add_sub(self, ctx: P.OC_AddOrSubtractExpressionContext) -> a.Expr:
        return self._arith(ctx, self.mul_div)

    def mul_div(self, ctx: P.OC_MultiplyDivideModuloExpressionContext) -> a.Expr:
        return self._arith(ctx, self.power)

    def power(self, ctx: P.OC_PowerOfExpressionContext) -> a.Expr:
        return self._arith(ctx, self.unary)

    def unary(self, ctx: P.OC_UnaryAddOrSubtractExpressionContext) -> a.Expr:
        operand = self.non_arithmetic(ctx.oC_NonArithmeticOperatorExpression())
        first = ctx.children[0]
        if isinstance(first, TerminalNode):
            if first.getText() == "-" and isinstance(operand, a.Literal) and isinstance(operand.value, int | float) \
                    and not isinstance(operand.value, bool):
                return a.Literal(-operand.value)
            if first.getText() == "-":
                return a.Unary("-", operand)
        if type(operand) is a.Literal and type(operand.value) is int and operand.value > MAX_INTEGER:
            raise too_large(str(operand.value))
        return operand

    def non_arithmetic(self, ctx: P.OC_NonArithmeticOperatorExpressionContext) -> a.Expr:
        result = self.atom(ctx.oC_Atom())
        for child in ctx.children[1:]:
            if isinstance(child, P.OC_PropertyLookupContext):
                result = a.Property(result, self.schema_name(child.oC_SchemaName()))
            elif isinstance(child, P.OC_ListOperatorExpressionContext):
                exprs = child.oC_Expression()
                if any(isinstance(c, TerminalNode) and c.getText() == ".." for c in child.children):
                    start = end = None
                    seen_range = False
                    for c in child.children:
                        if isinstance(c, TerminalNode) and c.getText() == "..":
                            seen_range = True
                        elif isinstance(c, P.OC_ExpressionContext):
                            if seen_range:
                                end = self.expr(c)
                            else:
                                start = self.expr(c)
                    result = a.Slice(result, start, end)
                else:
                    result = a.Index(result, self.expr(exprs[0]))
            elif isinstance(child, P.OC_NodeLabelsContext):
                result = a.HasLabels(result, self.labels(child))
        return result
