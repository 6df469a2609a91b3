"""Where converters put records, and where the reader cuts them into bounded batches.

Edges are kept by column rather than as one `EdgeRecord` each: an edge is a tuple (start, end, kind, properties)
whose ends are positions in the batch's table of ends (`Cut.ends`), one `EdgeEnd` per object id as written and
kind, made and upper-cased once a batch. The reading process prepares a cut for the writer from its columns
(`graph.store.columns.prepare_cut`); `Cut.batch()` gives the same records as `EdgeRecord`s to everyone else.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from houndgraph.graph.records import Cut, EdgeEnd, EdgeRecord, EdgeRow, NodeRecord
from houndgraph.ingest.errors import IngestError, Warnings

# The longest object id, name or kind the graph takes, in UTF-8 bytes: each is a key of a B-tree index, whose
# entries PostgreSQL caps near 2,700 bytes. A longer value failed the file's write at its end, after the
# whole file was read, as an index-row error reported as an interrupted service; it is refused as it is read.
MAX_INDEXED_BYTES = 2048
_SURELY_SHORT = MAX_INDEXED_BYTES // 4  # characters: UTF-8 takes at most four bytes for each


def check_indexed(what: str, value: object) -> None:
    """IngestError naming `what` when `value` is a string too long for the graph's indexes."""
    if isinstance(value, str) and len(value) > _SURELY_SHORT and (size := len(value.encode())) > MAX_INDEXED_BYTES:
        raise IngestError(f"the file holds {what} of {size} bytes (it begins {value[:40]!r}); object ids, names "
                          f"and kinds may be at most {MAX_INDEXED_BYTES} bytes")


def check_node(record: NodeRecord) -> None:
    check_indexed("an object id", record.objectid)
    check_indexed("a name", record.properties.get("name"))
    for kind in record.kinds:
        check_indexed("a kind", kind)


def _check_end(end: EdgeEnd) -> None:
    check_indexed("an edge end", end.value)
    check_indexed("a kind", end.kind)


class Emitter:
    """Collects the records converted from a file. `take_full` hands them out `batch_size` at a time,
    so a record with ten thousand ACEs still leaves batches of the agreed size."""

    def __init__(self, batch_size: int, warnings: Warnings) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.batch_size = batch_size
        self.warnings = warnings
        self.nodes: list[NodeRecord] = []
        self.edges: list[EdgeRow] = []
        self.deletions: list[str] = []
        # Source kinds not yet handed out: they go with the next cut, so with the file's first batch.
        self.source_kinds: list[str] = []
        # This batch's table of edge ends, and each end's position by (object id as written, kind): an object's
        # ACEs all end at it, and a few principals (Domain Admins, Account Operators...) start most of a
        # domain's ACEs, so an end is made and upper-cased once per batch rather than once per edge.
        self.ends: list[EdgeEnd] = []
        self._end_at: dict[tuple[str, str | None], int] = {}
        # What `ad_common.emit_aces` read from each distinct ACE of this batch (it holds positions in `ends`).
        self.ace_plans: dict[Any, Any] = {}

    def node(self, objectid: str, kinds: tuple[str, ...], properties: dict[str, Any] | None = None) -> None:
        record = NodeRecord(objectid.upper(), kinds, properties if properties is not None else {})
        check_node(record)
        self.nodes.append(record)

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
            # The two look-ups of `end`, written out: this runs once per edge, millions of times for a large domain.
            end_at = self._end_at
            first = end_at.get((start, start_kind))
            if first is None:
                first = end_at[start, start_kind] = len(self.ends)
                self.ends.append(EdgeEnd(start.upper(), start_kind))
                _check_end(self.ends[-1])
            last = end_at.get((end, end_kind))
            if last is None:
                last = end_at[end, end_kind] = len(self.ends)
                self.ends.append(EdgeEnd(end.upper(), end_kind))
                _check_end(self.ends[-1])
            self.edges.append((first, last, kind, properties))

    def end(self, objectid: str, kind: str | None) -> int:
        """The position in this batch's table of ends of an object id as written and a kind."""
        found = self._end_at.get((objectid, kind))
        if found is None:
            found = self._end_at[objectid, kind] = len(self.ends)
            self.ends.append(EdgeEnd(objectid.upper(), kind))
            _check_end(self.ends[-1])
        return found

    def record(self, record: NodeRecord | EdgeRecord) -> None:
        if isinstance(record, NodeRecord):
            check_node(record)
            self.nodes.append(record)
        else:
            _check_end(record.start)
            _check_end(record.end)
            check_indexed("a kind", record.kind)
            # A reader's own ends (OpenGraph's, which may match by name) go into the table as they are.
            ends = self.ends
            ends += (record.start, record.end)
            self.edges.append((len(ends) - 2, len(ends) - 1, record.kind, record.properties))

    def delete(self, objectid: str) -> None:
        self.deletions.append(objectid.upper())

    def source_kind(self, name: str) -> None:
        """Register `name` as a source kind (it counts as no record: a batch is cut by records alone)."""
        if name not in self.source_kinds:
            self.source_kinds.append(name)

    def mark(self) -> tuple[int, int, int]:
        return len(self.nodes), len(self.edges), len(self.deletions)

    def rollback(self, mark: tuple[int, int, int]) -> None:
        """Forget what was emitted since `mark` (records are only cut into batches between records)."""
        nodes, edges, deletions = mark
        del self.nodes[nodes:], self.edges[edges:], self.deletions[deletions:]

    def pending(self) -> int:
        return len(self.nodes) + len(self.edges) + len(self.deletions)

    def take_full(self) -> Iterator[Cut]:
        while self.pending() >= self.batch_size:
            yield self._cut(self.batch_size)

    def take_rest(self) -> Iterator[Cut]:
        yield from self.take_full()
        # A file whose records were all skipped still registers its source kind, as the reference does.
        if self.pending() or self.source_kinds:
            yield self._cut(self.pending())

    def _cut(self, size: int) -> Cut:
        self.ace_plans.clear()
        nodes = self.nodes[:size]
        del self.nodes[:size]
        size -= len(nodes)
        edges = self.edges[:size]
        del self.edges[:size]
        size -= len(edges)
        deletions = self.deletions[:size]
        del self.deletions[:size]
        cut = Cut(nodes, edges, self.ends, deletions, self.source_kinds)
        self.source_kinds = []
        self._start_table()
        return cut

    def _start_table(self) -> None:
        """A new table of ends for the next batch, holding the ends of the edges left over from this one (at
        most a record's worth: a batch is cut between records)."""
        old, self.ends, self._end_at = self.ends, [], {}
        if not self.edges:
            return
        moved: dict[int, int] = {}
        ends = self.ends
        kept = []
        for start, end, kind, properties in self.edges:
            first = moved.get(start)
            if first is None:
                first = moved[start] = len(ends)
                ends.append(old[start])
            last = moved.get(end)
            if last is None:
                last = moved[end] = len(ends)
                ends.append(old[end])
            kept.append((first, last, kind, properties))
        self.edges = kept
