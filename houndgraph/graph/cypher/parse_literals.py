"""The literal half of the parse-tree walk: numbers, strings, lists and maps."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import CypherSyntaxError
from houndgraph.graph.cypher.grammar.CypherParser import CypherParser as P

# Cypher integers are signed 64-bit, as in Neo4j and in PostgreSQL's bigint.
MAX_INTEGER = 2**63 - 1
NUL_IN_STRING = "a string cannot hold the NUL character (\\u0000)"


class LiteralBuilder:
    """Mixin for the parse-tree walker; relies on its expression and name methods."""

    if TYPE_CHECKING:  # provided by the parse-tree walker that mixes this in
        def expr(self, ctx: Any) -> a.Expr: ...
        def schema_name(self, ctx: Any) -> str: ...

    def literal(self, ctx: P.OC_LiteralContext) -> a.Expr:
        if (b := ctx.oC_BooleanLiteral()) is not None:
            return a.Literal(b.TRUE() is not None)
        if ctx.NULL() is not None:
            return a.Literal(None)
        if (n := ctx.oC_NumberLiteral()) is not None:
            return a.Literal(self.number(n))
        if (s := ctx.StringLiteral()) is not None:
            text = unescape_string(s.getText())
            if "\x00" in text:
                raise CypherSyntaxError(NUL_IN_STRING)
            return a.Literal(text)
        if (lst := ctx.oC_ListLiteral()) is not None:
            return a.ListLiteral(tuple(self.expr(e) for e in lst.oC_Expression()))
        return self.map_literal(ctx.oC_MapLiteral())

    def map_literal(self, ctx: P.OC_MapLiteralContext) -> a.MapLiteral:
        keys = [self.schema_name(k.oC_SchemaName()) for k in ctx.oC_PropertyKeyName()]
        values = [self.expr(e) for e in ctx.oC_Expression()]
        return a.MapLiteral(tuple(zip(keys, values, strict=True)))

    def number(self, ctx: P.OC_NumberLiteralContext) -> int | float:
        text = ctx.getText().lower()
        if ctx.oC_DoubleLiteral() is not None:
            return float(text)
        if text.startswith("0x"):
            value = int(text[2:], 16)
        elif text.startswith("0o"):
            value = int(text[2:], 8)
        else:
            value = int(text)
        # 2^63 itself only as the operand of a minus (`-9223372036854775808`, the smallest integer): the parser's
        # `unary` negates it or refuses it (too_large).
        if value > MAX_INTEGER + 1:
            raise too_large(ctx.getText())
        return value


def too_large(text: str) -> CypherSyntaxError:
    return CypherSyntaxError(f"integer is too large: {text[:40]} (the largest is {MAX_INTEGER}) (IntegerOverflow)")


_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def unescape_string(token: str) -> str:
    """A Cypher string literal's value. Unknown escapes keep their backslash, as regexes need them."""
    body = token[1:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt.lower() == "u" and i + 5 < len(body):
                out.append(chr(int(body[i + 2: i + 6], 16)))
                i += 6
                continue
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt])
            else:
                out.append("\\" + nxt)
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)
