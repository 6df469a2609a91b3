"""Batch preparation in memory, before anything reaches PostgreSQL.

`INSERT ... ON CONFLICT DO UPDATE` cannot touch the same row twice in one statement, so records for
the same object (or the same edge) inside one batch are merged here first, with the same rules the
SQL applies against what is already stored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from houndgraph.graph.kinds import AD_NODE_KINDS, AZ_NODE_KINDS, ADNode, AZNode
from houndgraph.graph.records import Batch, EdgeEnd, EdgeRecord, MatchBy, NodeRecord
from houndgraph.graph.store.encoding import copy_field, copy_json, json_lines, to_json, with_keys
from houndgraph.graph.store.properties import StoreProperty

Properties = dict[str, Any]
# (start object id, edge kind, end object id): one edge.
EdgeKey = tuple[str, str, str]
# (name, kind or None) of an OpenGraph `match_by: name` end.
NameKey = tuple[str, str | None]


def merge_properties(stored: Properties, new: Properties) -> None:
    """`stored || new`, except that `collected: true` is never taken back by a later `collected: false`.

    Collectors send stubs (an object id and `collected: false`) for objects they only saw referenced,
    e.g. the trusted domain in a trust; arriving after the full record, such a stub must not mark a
    collected object as uncollected. `_PROPERTY_MERGE` in `sql.py` is the same rule in SQL.
    """
    keep_collected = stored.get(StoreProperty.COLLECTED) is True
    stored.update(new)
    if keep_collected:
        stored[StoreProperty.COLLECTED] = True


def add_kinds(kinds: list[str], new: Iterable[str]) -> None:
    """Union that keeps the stored order: the first kinds stay first (they decide the display kind)."""
    for kind in new:
        if kind not in kinds:
            kinds.append(kind)


@cache
def placeholder_kinds(kind: str | None) -> tuple[str, ...]:
    """Kinds of a node created because an edge points at an object no record has described yet.

    The collector's kind for the end, plus the platform's base kind for AD and Azure kinds; an end
    without a kind is taken as a bare AD principal (`Base`), which is what SharpHound calls a principal
    whose type it could not resolve. Kinds of other platforms (OpenGraph) get no base kind invented.
    """
    if kind is None or kind == ADNode.Base:
        return (ADNode.Base,)
    if kind == AZNode.Base:
        return (AZNode.Base,)
    if kind in AZ_NODE_KINDS:
        return (kind, AZNode.Base)
    if kind in AD_NODE_KINDS:
        return (kind, ADNode.Base)
    return (kind,)


@dataclass(slots=True)
class MergedNode:
    kinds: list[str]
    properties: Properties
    # False while `properties` is still the caller's dict: it is copied before the first merge into it.
    owned: bool = False


@dataclass(slots=True)
class PreparedBatch:
    """A batch merged in memory: what the node and edge upserts need, each key once."""

    records: dict[str, MergedNode] = field(default_factory=dict)
    # Kinds that edge ends give for objects no record of the batch describes; moved into `kinded_ends` once the
    # batch is merged.
    end_kinds: dict[str, list[str]] = field(default_factory=dict)
    # The object ids of `end_kinds` by kind list (`group_end_kinds`): what the writer reads of them.
    kinded_ends: dict[tuple[str, ...], list[str]] = field(default_factory=dict)
    # Ends without a kind, of objects neither a record nor another end of the batch gives a kind for.
    bare_ends: set[str] = field(default_factory=set)
    edges: dict[EdgeKey, Properties] = field(default_factory=dict)
    # Edges with an OpenGraph `match_by: name` end, merged into `edges` once the names are resolved.
    name_edges: list[EdgeRecord] = field(default_factory=list)
    names: set[NameKey] = field(default_factory=set)
    # Keys of `edges` whose properties are already a copy (merged into, never the caller's dict).
    copied: set[EdgeKey] = field(default_factory=set)
    # Every object id an edge end gives (`match_by: id`), with each kind it gives for it.
    ends: set[tuple[str, str | None]] = field(default_factory=set)
    # The records with their properties as JSON, ready for COPY (`encode_nodes`).
    node_rows: NodeRows = field(default_factory=lambda: NodeRows.of([]))
    # The edges, ready for COPY (`encode_edges`).
    edge_rows: EdgeRows = field(default_factory=lambda: EdgeRows.of({}, ""))
    # The object ids of `records`, which outlive them (`for_writer`).
    record_ids: set[str] = field(default_factory=set)
    # The number of records, edge records and deletions the batch was prepared from.
    source_records: int = 0
    deletions: list[str] = field(default_factory=list)
    # The batch's source kinds to register (`records.Batch.source_kinds`).
    source_kinds: list[str] = field(default_factory=list)
    # `end_objectids()`, once made (`take_in`); never sent across processes.
    end_ids: set[str] | None = None

    def end_objectids(self) -> set[str]:
        """The object ids of every end given by id. Those of the encoded edges while no edge waits for a name
        (every id end is an end of a merged edge, and `edge_rows.objectids` is a plain list: no tuple each)."""
        if self.end_ids is not None:
            return self.end_ids
        if not self.name_edges and (self.edge_rows or not self.ends):
            return set(self.edge_rows.objectids)
        return {objectid for objectid, _ in self.ends}

    def take_in(self) -> PreparedBatch:
        """Makes ahead what the writer needs first and no database answer decides: the set of end object ids (and
        so the hash of each object id, which unpickling leaves to be computed at first use). Run by the thread that
        takes the batch in, while the writing thread waits for PostgreSQL on the batch before, rather than between
        two of its statements."""
        self.end_ids = self.end_objectids()
        return self

    def for_writer(self) -> PreparedBatch:
        """Drops what only preparing needed once it is encoded (the records, the merged edges with their
        property dicts, and the ends by kind, which `edge_rows.objectids` and `kinded_ends` hold), so the batch
        crosses to the writing process at about the size of its COPY rows and its few other values take little
        time to take in (unpickling holds the interpreter lock that the writing thread needs between statements).
        The merged edges and the ends stay while edges with name ends wait for their names to resolve."""
        self.records = {}
        self.end_ids = None
        if not self.name_edges:
            self.edges = {}
            self.copied = set()
            self.ends = set()
        return self

    def group_end_kinds(self) -> None:
        """`end_kinds` grouped by kind list into `kinded_ends`: the writer looks up each distinct list once, and the
        batch crosses to it as a list of object ids per kind list rather than a list object per end."""
        groups: dict[tuple[str, ...], list[str]] = {}
        for objectid, kinds in self.end_kinds.items():
            groups.setdefault(tuple(kinds), []).append(objectid)
        self.kinded_ends = groups
        self.end_kinds = {}

    def encode_nodes(self, lastseen: str) -> None:
        """Each record's properties as JSON, with its object id (upper-cased) and lastseen written in."""
        rows = []
        for objectid, node in self.records.items():
            stamp = orjson.dumps({StoreProperty.OBJECT_ID.value: objectid, StoreProperty.LAST_SEEN.value: lastseen})
            rows.append((objectid, tuple(node.kinds), with_keys(to_json(node.properties), stamp.decode())))
        self.node_rows = NodeRows.of(rows)
        self.record_ids = set(self.records)

    def encode_edges(self, lastseen: str) -> None:
        """The merged edges as `EdgeRows`; after every edge is merged (those with name ends only once their
        names are resolved)."""
        self.edge_rows = EdgeRows.of(self.edges, lastseen)


@dataclass(slots=True)
class NodeRows:
    """A batch's node records ready for COPY: for each distinct kind list (`kinds`), one text (`texts`) of its
    records' rows in COPY's text format, `object id TAB properties` each, escaped and ended by a newline. The
    writer puts the kind list's ids at the end of each row (one `str.replace` per text), so the records cross
    from the reading process as a few strings and reach COPY with no Python code per row. The staged records
    are upserted in object id order, whatever the order of the rows."""

    kinds: list[tuple[str, ...]]
    texts: list[str]
    count: int

    def __len__(self) -> int:
        return self.count

    @classmethod
    def of(cls, rows: list[tuple[str, tuple[str, ...], str]]) -> NodeRows:
        """From (object id, kinds, properties as JSON) rows."""
        groups: dict[tuple[str, ...], list[str]] = {}
        # Object ids rarely need any escaping.
        written = "".join([objectid for objectid, _, _ in rows])
        plain_ids = not any(character in written for character in "\\\t\n\r")
        for objectid, kinds, text in rows:
            escaped = objectid if plain_ids else copy_field(objectid)
            row = f"{escaped}\t{copy_json(text)}\n"
            found = groups.get(kinds)
            if found is None:
                groups[kinds] = [row]
            else:
                found.append(row)
        return cls(list(groups), ["".join(group) for group in groups.values()], len(rows))

    def rows(self) -> Iterator[tuple[str, tuple[str, ...], str]]:
        """(object id, kinds, properties as JSON) of each record, by kind list."""
        for kinds, text in zip(self.kinds, self.texts, strict=True):
            for row in text.split("\n")[:-1]:
                objectid, properties = row.split("\t")
                yield _unescaped(objectid), kinds, _unescaped(properties)


def _unescaped(value: str) -> str:
    if "\\" not in value:
        return value
    return re.sub(r"\\(.)", lambda match: {"t": "\t", "n": "\n", "r": "\r"}.get(match[1], match[1]), value)


@dataclass(slots=True)
class EdgeRows:
    """A batch's edges by position: each end an index into `objectids` and each kind one into `kinds` (the
    columns of `ends`: start, kind, end), and each edge's properties an index into `texts`, the batch's distinct
    property texts as JSON with `lastseen` written in (an ACE's edges share one text). The writer maps each
    distinct object id to its node id once, not each end, and builds the COPY from these columns; the batch
    crosses from the reading process as a few large values rather than four per edge."""

    objectids: list[str]
    kinds: list[str]
    ends: npt.NDArray[np.int32]
    texts: list[str]
    text_at: npt.NDArray[np.int32]

    def __len__(self) -> int:
        return int(self.ends.shape[0])

    @classmethod
    def of(cls, edges: dict[EdgeKey, Properties], lastseen: str) -> EdgeRows:
        stamp = orjson.dumps({StoreProperty.LAST_SEEN.value: lastseen}).decode()
        if not edges:
            return cls([], [], np.zeros((0, 3), dtype=np.int32), [], np.zeros(0, dtype=np.int32))
        starts, kinds, ends = zip(*edges, strict=True)
        objectids = list(dict.fromkeys(starts + ends))
        kind_names = list(dict.fromkeys(kinds))
        position = dict(zip(objectids, range(len(objectids)), strict=True)).__getitem__
        kind_position = dict(zip(kind_names, range(len(kind_names)), strict=True)).__getitem__
        count = len(starts)
        columns = np.empty((count, 3), dtype=np.int32)
        columns[:, 0] = np.fromiter(map(position, starts), dtype=np.int32, count=count)
        columns[:, 1] = np.fromiter(map(kind_position, kinds), dtype=np.int32, count=count)
        columns[:, 2] = np.fromiter(map(position, ends), dtype=np.int32, count=count)
        texts, text_at = distinct_texts(json_lines(list(edges.values()), stamp).split("\n"))
        return cls(objectids, kind_names, columns, texts, text_at)

    def rows(self) -> Iterator[tuple[str, str, str, str]]:
        """(start object id, kind, end object id, properties) of each edge, in batch order."""
        objectids, kinds = self.objectids, self.kinds
        for (start, kind, end), properties in zip(self.ends.tolist(), self.properties_list(), strict=True):
            yield objectids[start], kinds[kind], objectids[end], properties

    def properties_list(self) -> list[str]:
        return list(map(self.texts.__getitem__, self.text_at.tolist()))


def distinct_texts(texts: list[str]) -> tuple[list[str], npt.NDArray[np.int32]]:
    """The distinct values of `texts` in the order of first use, and the position of each text among them."""
    number: dict[str, int] = {}
    at = np.fromiter(map(lambda text: number.setdefault(text, len(number)), texts), dtype=np.int32,
                     count=len(texts))  # fmt: skip
    return list(number), at


def prepare_batch(batch: Batch, lastseen: str) -> PreparedBatch:
    """Everything about a batch that needs no database: merged, and encoded for COPY."""
    prepared = prepare(batch.nodes, batch.edges)
    prepared.source_records = len(batch)
    prepared.deletions = batch.deletions
    prepared.source_kinds = batch.source_kinds
    prepared.group_end_kinds()
    prepared.encode_nodes(lastseen)
    if not prepared.name_edges:
        prepared.encode_edges(lastseen)
    return prepared


def prepare(nodes: Iterable[NodeRecord], edges: Iterable[EdgeRecord]) -> PreparedBatch:
    """One pass over the records (this runs for every edge of a collection, so it stays lean)."""
    prepared = PreparedBatch()
    records = prepared.records
    for record in nodes:
        objectid = record.objectid.upper()
        merged = records.get(objectid)
        if merged is None:
            records[objectid] = MergedNode(list(record.kinds), record.properties)
            continue
        add_kinds(merged.kinds, record.kinds)
        if not merged.owned:
            merged.properties = dict(merged.properties)
            merged.owned = True
        merge_properties(merged.properties, record.properties)

    seen_ends = prepared.ends
    by_id = MatchBy.ID
    for edge in edges:
        start, end = edge.start, edge.end
        if start.match_by != by_id or end.match_by != by_id:
            prepared.name_edges.append(edge)
            for item in (start, end):
                if item.match_by == by_id:
                    _note_end(prepared, seen_ends, item.value.upper(), item.kind)
                else:
                    prepared.names.add((item.value, item.kind))
            continue
        start_id, end_id = start.value.upper(), end.value.upper()
        if (start_id, start.kind) not in seen_ends:
            _note_end(prepared, seen_ends, start_id, start.kind)
        if (end_id, end.kind) not in seen_ends:
            _note_end(prepared, seen_ends, end_id, end.kind)
        _add_edge(prepared, (start_id, edge.kind, end_id), edge.properties)
    # An object first met as a bare end may have been given a kind by a later end.
    prepared.bare_ends.difference_update(prepared.end_kinds)
    return prepared


def _note_end(prepared: PreparedBatch, seen: set[tuple[str, str | None]], objectid: str, kind: str | None) -> None:
    seen.add((objectid, kind))
    merged = prepared.records.get(objectid)
    if kind is None:
        if merged is None and objectid not in prepared.end_kinds:
            prepared.bare_ends.add(objectid)
        return
    kinds = placeholder_kinds(kind)
    if merged is not None:
        add_kinds(merged.kinds, kinds)
        return
    stored = prepared.end_kinds.get(objectid)
    if stored is None:
        prepared.end_kinds[objectid] = list(kinds)
    else:
        add_kinds(stored, kinds)


def _add_edge(prepared: PreparedBatch, key: EdgeKey, properties: Properties) -> None:
    stored = prepared.edges.get(key)
    if stored is None:
        prepared.edges[key] = properties
        return
    # The same edge twice in one batch (e.g. one right granted by two ACEs): merged like the upsert
    # merges, into a copy, never into the caller's dict.
    if key not in prepared.copied:
        stored = prepared.edges[key] = dict(stored)
        prepared.copied.add(key)
    stored.update(properties)


def add_name_edges(prepared: PreparedBatch, by_name: dict[NameKey, str], ambiguous: set[NameKey]) -> tuple[int, int]:
    """Merge the edges with name ends whose names resolved; the numbers skipped as unresolved and as
    ambiguous."""
    unresolved = skipped_ambiguous = 0
    for edge in prepared.name_edges:
        start, end = end_object_id(edge.start, by_name), end_object_id(edge.end, by_name)
        if start is None or end is None:
            if (edge.start.value, edge.start.kind) in ambiguous or (edge.end.value, edge.end.kind) in ambiguous:
                skipped_ambiguous += 1
            else:
                unresolved += 1
            continue
        _add_edge(prepared, (start, edge.kind, end), edge.properties)
    return unresolved, skipped_ambiguous


def end_object_id(end: EdgeEnd, by_name: dict[NameKey, str]) -> str | None:
    """The object id an end points at; None for a name that matched no node, or several."""
    if end.match_by == MatchBy.NAME:
        return by_name.get((end.value, end.kind))
    return end.value.upper()
