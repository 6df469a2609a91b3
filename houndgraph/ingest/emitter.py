"""Where converters put records, and where the reader cuts them into bounded batches."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from houndgraph.graph.records import Batch, EdgeEnd, EdgeRecord, NodeRecord
from houndgraph.ingest.errors import Warnings


class Emitter:
    """Collects the records converted from a file. `take_full` hands them out `batch_size` at a time,
    so a record with ten thousand ACEs still leaves batches of the agreed size."""

    def __init__(self, batch_size: int, warnings: Warnings) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.batch_size = batch_size
        self.warnings = warnings
        self.nodes: list[NodeRecord] = []
        self.edges: list[EdgeRecord] = []
        self.deletions: list[str] = []
        # The ends of this batch's edges by (object id as written, kind): an object's ACEs all end at it, and a
        # few principals (Domain Admins, Account Operators...) start most of a domain's ACEs, so an end is made
        # and upper-cased once per batch rather than once per edge. Ends are values nobody changes; cleared
        # with each cut so it stays as small as a batch.
        self._ends: dict[tuple[str, str | None], EdgeEnd] = {}
        # What `ad_common.emit_aces` read from each distinct ACE of this batch (it holds the batch's ends).
        self.ace_plans: dict[Any, Any] = {}

    def node(self, objectid: str, kinds: tuple[str, ...], properties: dict[str, Any] | None = None) -> None:
        self.nodes.append(NodeRecord(objectid.upper(), kinds, properties if properties is not None else {}))

    def edge(
        self,
        start: str,
        start_kind: str | None,
        end: str,
        end_kind: str | None,
        kind: str,
        properties: dict[str, Any],
    ) -> None:
        """An edge between two object ids; an edge with an empty end is dropped, as the reference does."""
        if start and end:
            # Positional construction: this runs once per edge, millions of times for a large domain.
            # The two look-ups of `end`, written out: this runs once per edge.
            ends = self._ends
            first = ends.get((start, start_kind))
            if first is None:
                first = ends[start, start_kind] = EdgeEnd(start.upper(), start_kind)
            last = ends.get((end, end_kind))
            if last is None:
                last = ends[end, end_kind] = EdgeEnd(end.upper(), end_kind)
            self.edges.append(EdgeRecord(first, last, kind, properties))

    def end(self, objectid: str, kind: str | None) -> EdgeEnd:
        """The batch's edge end for an object id as written and a kind (made and upper-cased once a batch)."""
        found = self._ends.get((objectid, kind))
        if found is None:
            found = self._ends[objectid, kind] = EdgeEnd(objectid.upper(), kind)
        return found

    def record(self, record: NodeRecord | EdgeRecord) -> None:
        if isinstance(record, NodeRecord):
            self.nodes.append(record)
        else:
            self.edges.append(record)

    def delete(self, objectid: str) -> None:
        self.deletions.append(objectid.upper())

    def mark(self) -> tuple[int, int, int]:
        return len(self.nodes), len(self.edges), len(self.deletions)

    def rollback(self, mark: tuple[int, int, int]) -> None:
        """Forget what was emitted since `mark` (records are only cut into batches between records)."""
        nodes, edges, deletions = mark
        del self.nodes[nodes:], self.edges[edges:], self.deletions[deletions:]

    def pending(self) -> int:
        return len(self.nodes) + len(self.edges) + len(self.deletions)

    def take_full(self) -> Iterator[Batch]:
        while self.pending() >= self.batch_size:
            yield self._cut(self.batch_size)

    def take_rest(self) -> Iterator[Batch]:
        yield from self.take_full()
        if self.pending():
            yield self._cut(self.pending())

    def _cut(self, size: int) -> Batch:
        self._ends.clear()
        self.ace_plans.clear()
        nodes = self.nodes[:size]
        del self.nodes[:size]
        size -= len(nodes)
        edges = self.edges[:size]
        del self.edges[:size]
        size -= len(edges)
        deletions = self.deletions[:size]
        del self.deletions[:size]
        return Batch(nodes=nodes, edges=edges, deletions=deletions)
