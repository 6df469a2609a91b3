"""What a query may still read of the nodes and relationships it deleted, as Neo4j has it.

A deleted entity keeps its id, and a relationship its type; its properties and labels are gone, and reading them is
Neo4j's EntityNotFound (DeletedEntityAccess). The graph store removes the rows at once (a later MATCH of the same
query must not find them), so a relationship's type that the rest of the query reads (`DELETE r RETURN type(r)`) is
read just before the DELETE into a column of the step's table (`kept_type`), and the rest of the query reads that
column instead (`keep_types`).

A variable stops holding the deleted entity at a WITH that does not pass it on under its own name: after it the name
may be bound anew.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher import validate
from houndgraph.graph.cypher.errors import CypherError
from houndgraph.graph.cypher.step_table import Table

# What a deleted node or relationship no longer has, besides its properties.
GONE_WITH_THE_ENTITY = frozenset({"labels", "keys", "properties"})


def kept_type(name: str) -> str:
    """The column holding the type of the relationship `name` held before it was deleted (a name with a space: no
    variable of a query can be called so)."""
    return f" type of {name}"


def type_of(name: str) -> a.FunctionCall:
    return a.FunctionCall("type", (a.Variable(name),))


def deleted_variables(clause: a.Delete, table: Table) -> set[str]:
    """The variables `clause` deleted an entity of on some row of `table` (a variable null on every row deleted
    nothing)."""
    return {e.name for e in clause.expressions if isinstance(e, a.Variable) and e.name in table.names()
            and any(table.value(row, e.name) is not None for row in table.rows)}


def check(clause: a.Clause, deleted: set[str]) -> set[str]:
    """Refuses a read in `clause` of what a deleted entity no longer has; answers the variables still holding a
    deleted entity after it."""
    if not deleted:
        return deleted
    for node in validate.walk(clause):
        subject = (node.subject if isinstance(node, a.Property | a.HasLabels)
                   else node.args[0] if isinstance(node, a.FunctionCall) and node.name in GONE_WITH_THE_ENTITY
                   and len(node.args) == 1 else None)
        if isinstance(subject, a.Variable) and subject.name in deleted:
            raise CypherError(f"Node or relationship {subject.name} was deleted in this query: its properties and "
                              f"labels cannot be read (DeletedEntityAccess)")
    return _passed_on(clause, deleted)


def keep_types(clause: a.Delete, rest: Sequence[a.Clause]) -> tuple[list[str], list[a.Clause]]:
    """The variables `clause` deletes whose type() the rest of the query reads while they still hold it, and `rest`
    with each such type() read from its column (`kept_type`); a WITH that passes the variable on passes its column
    too."""
    live = {e.name for e in clause.expressions if isinstance(e, a.Variable)}
    kept: list[str] = []
    for later in rest:
        kept += sorted({name for node in validate.walk(later) if (name := _type_read(node)) in live} - set(kept))
        live = _passed_on(later, live)
    live = set(kept)
    changed: list[a.Clause] = []
    for later in rest:
        if live:
            later = _replaced(later, live)
            if isinstance(later, a.With) and not later.projection.star:
                extra = tuple(a.ProjectionItem(a.Variable(kept_type(name)), kept_type(name))
                              for name in sorted(_passed_on(later, live)))
                later = dataclasses.replace(later, projection=dataclasses.replace(
                    later.projection, items=later.projection.items + extra))
            live = _passed_on(later, live)
        changed.append(later)
    return kept, changed


def _passed_on(clause: a.Clause, names: set[str]) -> set[str]:
    if not isinstance(clause, a.With) or clause.projection.star:
        return names
    return names & {item.alias for item in clause.projection.items
                    if isinstance(item.expression, a.Variable) and item.expression.name == item.alias}


def _type_read(node: object) -> str | None:
    if (isinstance(node, a.FunctionCall) and node.name == "type" and len(node.args) == 1
            and isinstance(node.args[0], a.Variable)):
        return node.args[0].name
    return None


def _replaced(node: Any, names: set[str]) -> Any:
    """`node` with every type() of a variable in `names` replaced by a read of its kept column."""
    name = _type_read(node)
    if name in names:
        return a.Variable(kept_type(name))
    if isinstance(node, tuple):
        return tuple(_replaced(item, names) for item in node)
    if fields := a.field_names(node):
        changes = {field: _replaced(getattr(node, field), names) for field in fields}
        if any(changes[key] is not getattr(node, key) for key in changes):
            return dataclasses.replace(node, **changes)
    return node
