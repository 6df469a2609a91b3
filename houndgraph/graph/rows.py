"""Nodes and edges as the graph library reads them back: plain records, shaped for the wire elsewhere."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class NodeRow:
    id: int
    kinds: tuple[str, ...]
    properties: dict[str, Any]


@dataclass(frozen=True)
class EdgeRow:
    id: int
    start_id: int
    end_id: int
    kind: str
    properties: dict[str, Any]


# The property keys a caller reads of each node and of each edge, when it shows no more of them.
EntityKeys = tuple[tuple[str, ...], tuple[str, ...]]


def properties_columns(keys: EntityKeys | None, node_table: str = "", edge_table: str = "") -> tuple[str, str]:
    """`properties_column` of the nodes and of the edges, for `keys` (every property when None)."""
    return (properties_column(None if keys is None else keys[0], node_table),
            properties_column(None if keys is None else keys[1], edge_table))


def properties_column(keys: tuple[str, ...] | None, table: str = "") -> str:
    """SQL for the `properties` column of `table` (an alias, or none), cut down to `keys` when given: a key the
    entity lacks reads as null, which the callers take for missing. The keys are the callers' constants."""
    column = f"{table}.properties" if table else "properties"
    if keys is None:
        return column
    if not all(key.isidentifier() for key in keys):
        raise ValueError(f"property keys to read must be plain names: {keys}")
    pairs = ", ".join(f"'{key}', {column}->'{key}'" for key in keys)
    return f"jsonb_build_object({pairs})" if keys else "'{}'::jsonb"
