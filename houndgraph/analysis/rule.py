"""A post-processing rule: a name, the edge kinds it owns, and the function computing them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from houndgraph.analysis.context import Context
from houndgraph.analysis.sink import EdgeSet

Derived = Mapping[str, EdgeSet]


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    # The kinds this rule owns: after it runs, the stored edges of these kinds are exactly its result.
    produces: tuple[str, ...]
    compute: Callable[[Context], Derived]
