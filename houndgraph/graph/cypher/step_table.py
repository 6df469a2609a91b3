"""The rows of bindings an updating query hands from one step to the next (updates.py): a column per variable in
scope, each with the translator's type of its values; the next step's statement reads them as its `Inputs`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from houndgraph.graph.cypher.translate.values import Inputs, T


@dataclass
class Table:
    """The rows of bindings between two steps."""

    columns: list[tuple[str, T]]
    rows: list[tuple[Any, ...]]

    def names(self) -> list[str]:
        return [name for name, _ in self.columns]

    def inputs(self) -> Inputs:
        return Inputs(tuple(self.columns), tuple(self.rows))

    def value(self, row: tuple[Any, ...], name: str) -> Any:
        return row[self.names().index(name)]

    def project(self, names: Sequence[str]) -> Table:
        positions = [self.names().index(n) for n in names]
        return Table([self.columns[p] for p in positions], [tuple(r[p] for p in positions) for r in self.rows])

    def subset(self, rows: list[tuple[Any, ...]]) -> Table:
        return Table(list(self.columns), rows)

    def with_columns(self, columns: list[tuple[str, T]], values: list[tuple[Any, ...]]) -> Table:
        """This table with `columns` added, `values` holding each row's values of them, row by row."""
        return Table([*self.columns, *columns], [(*row, *more) for row, more in zip(self.rows, values, strict=True)])
