"""The type errors Neo4j finds before it runs a query: values whose type the translator knows (literals, and what
a WITH passes on of them: Typed.constant) used where that type cannot stand. Each message ends with the name of
Neo4j's error (InvalidArgumentType), as clients of Neo4j match on it."""

from __future__ import annotations

from typing import Any

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.errors import CypherSemanticError
from houndgraph.graph.cypher.translate.values import NOT_CONSTANT, Typed
from houndgraph.graph.cypher.validate import walk

SCALARS = ("Boolean", "Integer", "Float", "String")


def refuse_non_boolean_literal(e: a.Expr) -> None:
    """A literal that is not a boolean where a boolean must stand (`NOT 0`, `true OR []`) is Neo4j's compile-time
    InvalidArgumentType, not a null."""
    kind = literal_kind(e)
    if kind is not None and kind not in ("Boolean", "Null"):
        raise CypherSemanticError(f"Type mismatch: expected Boolean but was {kind} (InvalidArgumentType)")


def constant_kind(value: Any) -> str | None:
    """Cypher's name of the type of a value the translator knows (Typed.constant), None when it does not."""
    if value is NOT_CONSTANT:
        return None
    if value is None:
        return "Null"
    if isinstance(value, list):
        return "List"
    if isinstance(value, dict):
        return "Map"
    return {bool: "Boolean", int: "Integer", float: "Float", str: "String"}.get(type(value), "Temporal")


def literal_kind(e: a.Expr) -> str | None:
    """Cypher's name of a literal's type, or None for an expression that is not a literal."""
    if isinstance(e, a.ListLiteral):
        return "List"
    if isinstance(e, a.MapLiteral):
        return "Map"
    if not isinstance(e, a.Literal):
        return None
    if e.value is None:
        return "Null"
    return {bool: "Boolean", int: "Integer", float: "Float", str: "String"}.get(type(e.value))





# The operators that take numbers only (`+` also joins strings and lists).
NUMBER_OPERATORS = frozenset({"-", "*", "/", "%", "^"})


def refuse_arithmetic_on_literal_elements(variable: str, source: a.Expr, where: a.Expr | None) -> None:
    """`none(x IN ['a', 'b'] WHERE x % 2 = 0)`: the elements of a literal list of strings or booleans are known to
    be such, and arithmetic on them is Neo4j's compile-time InvalidArgumentType."""
    if where is None or not isinstance(source, a.ListLiteral) or not source.items:
        return
    kinds = {literal_kind(item) for item in source.items}
    if len(kinds) != 1 or (kind := kinds.pop()) not in ("String", "Boolean"):
        return
    for node in walk(where):
        if isinstance(node, a.Binary) and (node.op in NUMBER_OPERATORS or (node.op == "+" and kind == "Boolean")) \
                and a.Variable(variable) in (node.left, node.right):
            raise CypherSemanticError(f"Type mismatch: expected Float or Integer but was {kind} "
                                      "(InvalidArgumentType)")


def refuse_property_of_scalar(subject: Typed) -> None:
    if (kind := constant_kind(subject.constant)) in (*SCALARS, "List"):
        raise CypherSemanticError(f"Type mismatch: expected a map, node, relationship or temporal value but was "
                                  f"{kind} (InvalidArgumentType)")


def refuse_index_of_scalar(subject: Typed, index: Typed) -> None:
    subject_kind, index_kind = constant_kind(subject.constant), constant_kind(index.constant)
    if subject_kind in SCALARS:
        raise CypherSemanticError(f"Type mismatch: expected a list or a map but was {subject_kind} "
                                  "(InvalidArgumentType)")
    if subject_kind == "List" and index_kind not in (None, "Null", "Integer"):
        raise CypherSemanticError(f"Type mismatch: a list index must be an Integer, not {index_kind} "
                                  "(InvalidArgumentType)")
