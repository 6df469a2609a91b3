"""The pattern half of the parse-tree walk: node, relationship and path patterns."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from antlr4.tree.Tree import TerminalNode

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import PARAMETERS_NOT_SUPPORTED, CypherError
from houndgraph.graph.cypher.grammar.CypherParser import CypherParser as P


class PatternBuilder:
    """Mixin for the parse-tree walker; relies on its expression and name methods."""

    if TYPE_CHECKING:  # provided by the parse-tree walker that mixes this in
        def variable(self, ctx: Any) -> str: ...
        def schema_name(self, ctx: Any) -> str: ...
        def map_literal(self, ctx: Any) -> a.MapLiteral: ...

    def patterns(self, ctx: P.OC_PatternContext) -> tuple[a.PatternPart, ...]:
        return tuple(self.pattern_part(p) for p in ctx.oC_PatternPart())

    def pattern_part(self, ctx: P.OC_PatternPartContext) -> a.PatternPart:
        variable = self.variable(ctx.oC_Variable()) if ctx.oC_Variable() is not None else None
        anonymous = ctx.oC_AnonymousPatternPart()
        shortest = None
        if (sp := anonymous.oC_ShortestPathPattern()) is not None:
            shortest = a.Shortest.ONE if sp.SHORTESTPATH() is not None else a.Shortest.ALL
            element = sp.oC_PatternElement()
        else:
            element = anonymous.oC_PatternElement()
        while element.oC_PatternElement() is not None:  # redundant parentheses
            element = element.oC_PatternElement()
        nodes, rels = self.chain(element.oC_NodePattern(), element.oC_PatternElementChain())
        return a.PatternPart(variable, nodes, rels, shortest)

    def relationships_pattern(self, ctx: P.OC_RelationshipsPatternContext) -> a.PatternPart:
        nodes, rels = self.chain(ctx.oC_NodePattern(), ctx.oC_PatternElementChain())
        return a.PatternPart(None, nodes, rels)

    def chain(self, first: P.OC_NodePatternContext, links: list[P.OC_PatternElementChainContext],
              ) -> tuple[tuple[a.NodePattern, ...], tuple[a.RelPattern, ...]]:
        nodes = [self.node_pattern(first)]
        rels = []
        for link in links:
            rels.append(self.rel_pattern(link.oC_RelationshipPattern()))
            nodes.append(self.node_pattern(link.oC_NodePattern()))
        return tuple(nodes), tuple(rels)

    def properties(self, ctx: P.OC_PropertiesContext | None) -> a.MapLiteral | None:
        if ctx is None:
            return None
        if ctx.oC_Parameter() is not None:
            raise CypherError(PARAMETERS_NOT_SUPPORTED)
        return self.map_literal(ctx.oC_MapLiteral())

    def labels(self, ctx: P.OC_NodeLabelsContext | None) -> tuple[tuple[str, ...], ...]:
        if ctx is None:
            return ()
        return tuple(tuple(self.schema_name(n) for n in label.oC_SchemaName()) for label in ctx.oC_NodeLabel())

    def node_pattern(self, ctx: P.OC_NodePatternContext) -> a.NodePattern:
        variable = self.variable(ctx.oC_Variable()) if ctx.oC_Variable() is not None else None
        return a.NodePattern(variable, self.labels(ctx.oC_NodeLabels()), self.properties(ctx.oC_Properties()))

    def rel_pattern(self, ctx: P.OC_RelationshipPatternContext) -> a.RelPattern:
        arrows = "".join(c.getText() for c in ctx.children if isinstance(c, TerminalNode))
        left, right = arrows.startswith("<"), arrows.endswith(">")
        direction = a.Direction.BOTH if left == right else (a.Direction.IN if left else a.Direction.OUT)
        detail = ctx.oC_RelationshipDetail()
        if detail is None:
            return a.RelPattern(None, (), direction)
        variable = self.variable(detail.oC_Variable()) if detail.oC_Variable() is not None else None
        types: tuple[str, ...] = ()
        if (t := detail.oC_RelationshipTypes()) is not None:
            types = tuple(self.schema_name(n) for n in t.oC_SchemaName())
        length = written = None
        if (r := detail.oC_RangeLiteral()) is not None:
            length, written = self.range_literal(r)
        return a.RelPattern(variable, types, direction, length, self.properties(detail.oC_Properties()), written)

    def range_literal(self, ctx: P.OC_RangeLiteralContext,
                      ) -> tuple[tuple[int | None, int | None], tuple[int | None, int | None]]:
        low: int | None = None
        high: int | None = None
        seen_range = False
        for child in ctx.children:
            if isinstance(child, TerminalNode):
                seen_range = seen_range or child.getText() == ".."
            else:
                value = int(child.getText(), 0) if child.getText()[:2].lower() in ("0x", "0o") \
                    else int(child.getText())
                if seen_range:
                    high = value
                else:
                    low = value
        if not seen_range:
            # `*3` means exactly three hops; a bare `*` means one or more.
            return ((low, low) if low is not None else (1, None)), (low, low)
        return (1 if low is None else low, high), (low, high)
