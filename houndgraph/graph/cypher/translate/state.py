"""The state one translation shares between its modules: kinds, found shortest paths, input rows,
the bound parameters and aliases written so far, and where in the query the translation is."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from houndgraph.graph.cypher import ast as a
from houndgraph.graph.cypher.statistics import KindStatistics
from houndgraph.graph.cypher.translate.set_answer import NONE, SetAnswer
from houndgraph.graph.cypher.translate.values import Aliases, Inputs, Params

# One found path: (left end id, right end id, [node, edge, node, ...]).
FoundPath = tuple[int, int, list[int]]


@dataclass
class Translation:
    kinds: Mapping[str, int]
    # The paths of each shortestPath pattern of the top-level MATCH clauses, in query order.
    shortest: Mapping[int, list[FoundPath]] = field(default_factory=dict)
    # Rows bound by the earlier steps of an updating query: the top-level query reads from them.
    inputs: Inputs | None = None
    params: Params = field(default_factory=Params)
    # Rows per node and edge kind, when the database has statistics: where variable-length walks start.
    stats: KindStatistics | None = None
    aliases: Aliases = field(default_factory=Aliases)
    shortest_seen: int = 0
    # The rewrites a query answered as a graph allows (set_answer.plan): walks of reachable nodes, one element
    # of an UNWIND, one match of an OPTIONAL MATCH, a DISTINCT final RETURN.
    answer: SetAnswer = NONE
    # Inside a projection item that aggregates (count(), collect(), ...).
    aggregating: bool = False
    # Inside the patterns of a top-level MATCH, the only place a shortestPath may stand.
    top_match: bool = False
    # Inside an expression computed once per statement (expressions.expr): its parts are not hoisted again.
    hoisting: bool = False
    # Node variables written in one node pattern and named nowhere but in count(): patterns.edge_end_only.
    counted_only: frozenset[str] = frozenset()
    # String functions of a node's property computed once per node row (patterns.per_node_texts), by node
    # variable while its pattern is placed, then by expression once they have a column.
    per_node: dict[str, list[a.FunctionCall]] = field(default_factory=dict)
    node_texts: dict[a.Expr, str] = field(default_factory=dict)
    # Join keys of a node computed once per node row (patterns.per_node_keys), by node variable while its pattern
    # is placed, then by expression once they have a column.
    per_node_keys: dict[str, list[a.Expr]] = field(default_factory=dict)
    node_keys: dict[a.Expr, str] = field(default_factory=dict)
    # The text column of a value computed once per row where it comes from (an UNWIND's element), by its SQL.
    texts: dict[str, str] = field(default_factory=dict)
    # And the columns of its string functions, by the function's SQL (`lower(s)`).
    text_functions: dict[str, dict[str, str]] = field(default_factory=dict)
    # The values the translator computed of the last projection's columns (constants.py), NOT_CONSTANT elsewhere.
    projected_constants: list[Any] = field(default_factory=list)
    # Whether a WITH bound a temporal value computed while translating (constants.folded looks for its readers).
    temporal_bound: bool = False
    # The instant the clock functions of this query answer (date(), datetime.statement(), ...), once read.
    clock: list[datetime] = field(default_factory=list)

    @contextmanager
    def within(self, *, aggregating: bool | None = None, top_match: bool | None = None,
               hoisting: bool | None = None) -> Iterator[None]:
        """Sets the flags given for the duration of the block."""
        saved = self.aggregating, self.top_match, self.hoisting
        if aggregating is not None:
            self.aggregating = aggregating
        if top_match is not None:
            self.top_match = top_match
        if hoisting is not None:
            self.hoisting = hoisting
        try:
            yield
        finally:
            self.aggregating, self.top_match, self.hoisting = saved
