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
