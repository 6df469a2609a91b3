"""The work a graph search may do: nodes visited, path members found, rows returned, and a time limit.

Path searches run one statement per level, and a many-to-many or all-paths search can visit the
graph once per root and enumerate exponentially many paths: every search draws on one budget, and
stops with `WorkExhausted` when any part of it runs out, or when the caller's deadline has passed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

# Node visits summed over every search of one query: ten full traversals of a 500k-node graph.
MAX_VISITED_NODES = 5_000_000
# Node and edge ids in all the paths one query finds (each costs memory here and in the statement).
MAX_PATH_MEMBERS = 1_000_000
# Rows one query may return.
MAX_ROWS = 100_000


class WorkExhausted(Exception):
    """A search passed its node or path budget, or the deadline passed."""


class ResultTooLarge(Exception):
    """A query returned more rows than a response may carry."""


def _never() -> bool:
    return False


@dataclass
class WorkBudget:
    max_nodes: int = MAX_VISITED_NODES
    max_path_members: int = MAX_PATH_MEMBERS
    max_rows: int = MAX_ROWS
    expired: Callable[[], bool] = _never
    nodes: int = 0
    path_members: int = 0

    def check_time(self) -> None:
        if self.expired():
            raise WorkExhausted("the request's deadline passed")

    def visit(self, count: int) -> None:
        self.nodes += count
        if self.nodes > self.max_nodes:
            raise WorkExhausted(f"the search visited more than {self.max_nodes} nodes")

    def found(self, members: int) -> None:
        self.path_members += members
        if self.path_members > self.max_path_members:
            raise WorkExhausted(f"the paths found hold more than {self.max_path_members} nodes and edges")

    def check_rows(self, count: int) -> None:
        if count > self.max_rows:
            raise ResultTooLarge(f"the query returned more than {self.max_rows} rows: narrow it, e.g. with LIMIT")
