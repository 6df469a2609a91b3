"""Parsing a query that differs from one parsed before only in its string literals (the same question about
another object: `MATCH (n:User) WHERE n.objectid = '…' RETURN n`) costs a walk of the tree, not a parse.

The ANTLR parser takes milliseconds for even a small query, and `parser.parse` caches by the exact text, which
a query naming a different object every time never hits. Here each string literal is replaced by a numbered
placeholder, the text so obtained is parsed (and cached) once, and the placeholders in its tree are replaced
by the literals' values. Whenever the tree does not hold every placeholder as a plain string literal, exactly
as written (a literal the parser folded, rewrote or copied into a name, say), or a literal cannot be read or
holds what the parser refuses in one (NUL), the query is parsed as it stands: the answer, and any error, is
always the one `parser.parse` gives.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import CypherError
from houndgraph.graph.cypher.parse_literals import unescape_string
from houndgraph.graph.cypher.parser import MAX_QUERY_LENGTH, parse

MARK = "\ue000"  # a private-use character: a query that holds one is parsed as it stands
_TOKENS = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`[^`]*`|//[^\n]*|/\*.*?\*/""", re.DOTALL)
_PLACEHOLDER = re.compile(f"{MARK}([0-9]+){MARK}")


class _Mismatch(Exception):
    """The template's tree does not hold the placeholders as plain literals."""


def parse_query(text: str) -> a.Query:
    """`parser.parse(text)`, from the cached tree of the same text with other string literals when there is one."""
    if MARK in text or len(text) > MAX_QUERY_LENGTH:
        return parse(text)
    literals: list[str] = []

    def placeholder(match: re.Match[str]) -> str:
        token = match.group(0)
        if token[0] not in "'\"":
            return token  # a quoted name or a comment stays
        literals.append(token)
        return f"'{MARK}{len(literals) - 1}{MARK}'"

    template = _TOKENS.sub(placeholder, text)
    if not literals:
        return parse(text)
    try:
        shape = parse(template)
        values = [unescape_string(token) for token in literals]
        if any("\x00" in value for value in values):
            return parse(text)  # refused by the literal's own check, which the placeholder passed
        used: set[int] = set()
        query = _fill(shape, values, used)
    except (CypherError, _Mismatch, ValueError, IndexError):
        return parse(text)
    if len(used) != len(values):
        return parse(text)
    assert isinstance(query, a.Query)
    return query


def _fill(node: Any, values: list[str], used: set[int]) -> Any:
    """`node` with its placeholders replaced by `values`; raises _Mismatch at a placeholder anywhere else."""
    if isinstance(node, a.Literal) and isinstance(node.value, str):
        found = _PLACEHOLDER.fullmatch(node.value)
        if found is None:
            _refuse_marked(node.value)
            return node
        index = int(found.group(1))
        used.add(index)
        return a.Literal(values[index])
    if isinstance(node, str):
        _refuse_marked(node)
        return node
    if isinstance(node, tuple):
        return tuple(_fill(item, values, used) for item in node)
    if isinstance(node, list):
        return [_fill(item, values, used) for item in node]
    if isinstance(node, dict):
        return {_fill(key, values, used): _fill(value, values, used) for key, value in node.items()}
    if names := a.field_names(node):
        changed = {}
        for name in names:
            value = getattr(node, name)
            filled = _fill(value, values, used)
            if filled is not value:
                changed[name] = filled
        return replace(node, **changed) if changed else node
    return node


def _refuse_marked(text: str) -> None:
    if MARK in text:
        raise _Mismatch(text)
