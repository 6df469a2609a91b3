"""The records that readers produce and the store writes: the contract between ingest/ and graph/."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class MatchBy(StrEnum):
    ID = "id"
    NAME = "name"


@dataclass(slots=True)
class NodeRecord:
    """One object. `objectid` is stored upper-cased; `kinds` are added to the kinds already stored;
    `properties` merge into the stored ones (a key present here wins, keys absent here are kept)."""

    objectid: str
    kinds: tuple[str, ...]
    properties: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class EdgeEnd:
    """One end of an edge: an object id (or a name, for OpenGraph `match_by: name`), and the kind the
    collector says it has, used when the node does not exist yet and a placeholder is created."""

    value: str
    kind: str | None = None
    match_by: MatchBy = MatchBy.ID


@dataclass(slots=True)
class EdgeRecord:
    start: EdgeEnd
    end: EdgeEnd
    kind: str
    properties: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Batch:
    """What a reader yields: a bounded number of records (memory stays flat whatever the file size)."""

    nodes: list[NodeRecord] = field(default_factory=list)
    edges: list[EdgeRecord] = field(default_factory=list)
    # Object ids to delete (the SharpHound `deleted` file type).
    deletions: list[str] = field(default_factory=list)
    # Source kinds to register (an OpenGraph file's `metadata.source_kind`), with the graph rows of the batch: what
    # `GET /api/v2/graphs/source-kinds` lists and `POST /api/v2/clear-database` deletes by. Not records: no length.
    source_kinds: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.nodes) + len(self.edges) + len(self.deletions)


# (start, end, kind, properties): start and end are positions in the batch's table of ends (`Cut.ends`).
EdgeRow = tuple[int, int, str, dict[str, Any]]


class Cut:
    """One batch by column, as a reader's emitter cuts it: its node records, its edges as `EdgeRow`s and the table
    of ends they name, its deletions and the source kinds to register. The store prepares it for the writer without
    an `EdgeRecord` per edge (`graph.store.columns.prepare_cut`). Nothing changes a cut after it is made (the
    emitter starts a new table of ends)."""

    __slots__ = ("nodes", "edges", "ends", "deletions", "source_kinds")

    def __init__(self, nodes: list[NodeRecord], edges: list[EdgeRow], ends: list[EdgeEnd],
                 deletions: list[str], source_kinds: list[str] | None = None) -> None:
        self.nodes = nodes
        self.edges = edges
        # May hold ends no edge of the cut names (an object without ACEs, a record rolled back): ignore them.
        self.ends = ends
        self.deletions = deletions
        self.source_kinds = source_kinds if source_kinds is not None else []

    def __len__(self) -> int:
        return len(self.nodes) + len(self.edges) + len(self.deletions)

    def batch(self) -> Batch:
        """The cut as records: each edge an `EdgeRecord` whose ends are the table's (shared) `EdgeEnd`s."""
        ends = self.ends
        edges = [EdgeRecord(ends[start], ends[end], kind, properties) for start, end, kind, properties in self.edges]
        return Batch(nodes=self.nodes, edges=edges, deletions=self.deletions, source_kinds=self.source_kinds)
