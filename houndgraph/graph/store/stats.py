"""WriteStats: what the store did, for the caller to report."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(slots=True)
class WriteStats:
    """What one or more `write` calls did; counts are per batch after merging duplicates."""

    records: int = 0  # records read: node, edge and deletion records as the reader gave them
    nodes: int = 0  # node records written (duplicates within a batch count once)
    edges: int = 0  # edges written (inserted, updated or already identical)
    placeholders: int = 0  # nodes created for edge ends no record had described
    deleted: int = 0  # nodes deleted (their edges go with them)
    unresolved: int = 0  # edges skipped: a `match_by: name` end matched no node
    ambiguous: int = 0  # edges skipped: a `match_by: name` end matched several nodes

    def __iadd__(self, other: WriteStats) -> WriteStats:
        for item in fields(self):
            setattr(self, item.name, getattr(self, item.name) + getattr(other, item.name))
        return self
