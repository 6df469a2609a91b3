"""A reader's batch prepared for the writer (`merge.prepare_batch(batch, lastseen).for_writer()`) in less time.

Preparing is per edge: each end upper-cased and looked up, the edge merged with its duplicates, then encoded.
The readers' batches share their parts: an edge end is one object per (object id, kind) and batch
(`Emitter.end`), an ACE's edges share one property dict (`ad_common.AcePlan`), and edge kinds are a few dozen
(enum members, whose hash is Python code). So each distinct end, kind and property dict is worked on once, by
identity, and an edge is three integers and a dict look-up. Edges with an OpenGraph `match_by: name` end (which
the writer resolves) take `prepare_batch` unchanged. `tests/ingest/test_prepared.py` compares the two.
"""

from __future__ import annotations

from itertools import chain
from typing import Any

import numpy as np
import orjson

from houndgraph.graph.records import Batch, EdgeEnd, MatchBy
from houndgraph.graph.store.encoding import json_lines
from houndgraph.graph.store.merge import EdgeRows, PreparedBatch, add_kinds, placeholder_kinds, prepare, prepare_batch
from houndgraph.graph.store.properties import StoreProperty


def prepare_for_writer(batch: Batch, lastseen: str) -> PreparedBatch:
    """What `prepare_batch(batch, lastseen).for_writer()` gives, field by field."""
    prepared = prepare(batch.nodes, ())
    ends = _Ends(prepared)
    end_at = ends.index_of_end
    kind_at: dict[int, int] = {}
    kinds: list[str] = []
    kind_index: dict[str, int] = {}
    edges: dict[tuple[int, int, int], dict[str, Any]] = {}
    copied: set[tuple[int, int, int]] = set()
    for edge in batch.edges:
        start, end, kind = edge.start, edge.end, edge.kind
        first = end_at.get(id(start))
        if first is None:
            first = ends.add(start)
            if first < 0:
                return prepare_batch(batch, lastseen).for_writer()
        last = end_at.get(id(end))
        if last is None:
            last = ends.add(end)
            if last < 0:
                return prepare_batch(batch, lastseen).for_writer()
        kind_number = kind_at.get(id(kind))
        if kind_number is None:
            kind_number = kind_index.get(kind)
            if kind_number is None:
                kind_number = kind_index[kind] = len(kinds)
                kinds.append(kind)
            kind_at[id(kind)] = kind_number
        key = (first, kind_number, last)
        stored = edges.get(key)
        if stored is None:
            edges[key] = edge.properties
            continue
        # The same edge twice in the batch: merged into a copy, as `merge.prepare` does.
        if key not in copied:
            stored = edges[key] = dict(stored)
            copied.add(key)
        stored.update(edge.properties)
    prepared.bare_ends.difference_update(prepared.end_kinds)
    prepared.source_records = len(batch)
    prepared.deletions = batch.deletions
    prepared.encode_nodes(lastseen)
    prepared.edge_rows = _edge_rows(edges, ends.objectids, kinds, lastseen)
    prepared.records = {}
    return prepared


class _Ends:
    """The batch's edge ends: each distinct end object noted once (`merge._note_end`), each object id numbered."""

    def __init__(self, prepared: PreparedBatch) -> None:
        self.prepared = prepared
        self.index_of_end: dict[int, int] = {}
        self.index_of_objectid: dict[str, int] = {}
        self.objectids: list[str] = []
        # The end objects by their ids: an id stays theirs while they are alive.
        self._alive: list[EdgeEnd] = []

    def add(self, end: EdgeEnd) -> int:
        """The end's object id number; -1 for an end matched by name."""
        if end.match_by != MatchBy.ID:
            return -1
        objectid, kind = end.value.upper(), end.kind
        index = self.index_of_objectid.get(objectid)
        if index is None:
            index = self.index_of_objectid[objectid] = len(self.objectids)
            self.objectids.append(objectid)
        self.index_of_end[id(end)] = index
        self._alive.append(end)
        prepared = self.prepared
        if (objectid, kind) in prepared.ends:
            return index
        prepared.ends.add((objectid, kind))
        merged = prepared.records.get(objectid)
        if kind is None:
            if merged is None and objectid not in prepared.end_kinds:
                prepared.bare_ends.add(objectid)
            return index
        placeholder = placeholder_kinds(kind)
        if merged is not None:
            add_kinds(merged.kinds, placeholder)
        elif (stored := prepared.end_kinds.get(objectid)) is None:
            prepared.end_kinds[objectid] = list(placeholder)
        else:
            add_kinds(stored, placeholder)
        return index


def _edge_rows(edges: dict[tuple[int, int, int], dict[str, Any]], objectids: list[str], kinds: list[str],
               lastseen: str) -> EdgeRows:
    if not edges:
        return EdgeRows.of({}, lastseen)
    stamp = orjson.dumps({StoreProperty.LAST_SEEN.value: lastseen}).decode()
    # Each distinct property dict encoded once (`json_lines` as `EdgeRows.of` uses it).
    number_of: dict[int, int] = {}
    distinct: list[dict[str, Any]] = []
    numbers = []
    for properties in edges.values():
        number = number_of.get(id(properties))
        if number is None:
            number = number_of[id(properties)] = len(distinct)
            distinct.append(properties)
        numbers.append(number)
    texts = json_lines(distinct, stamp).split("\n")
    count = len(edges)
    columns = np.fromiter(chain.from_iterable(edges), dtype=np.int32, count=3 * count).reshape(count, 3)
    # Only the object ids and kinds the merged edges use, as `EdgeRows.of` lists them.
    return EdgeRows(objectids, kinds, columns, "\n".join([texts[number] for number in numbers]))
