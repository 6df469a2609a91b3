"""The store's second way to prepare a batch: from a `records.Cut` (edges by column), what
`merge.prepare_batch(batch, lastseen).for_writer()` gives from records, in less time.

Preparing is per edge: each end upper-cased and looked up, the edge merged with its duplicates, then encoded.
The emitter keeps a batch's edges by column (`records.Cut`): each end a position in the batch's table of ends
(one `EdgeEnd` per object id as written and kind), an ACE's edges share one property dict (`ad_common.AcePlan`),
and edge kinds are a few dozen objects (enum members, whose hash is Python code). So each distinct end is worked
on once in Python, and the edges are numbered, merged and ordered with numpy: kinds and property dicts by
identity, then by value, duplicates by one integer key per edge. Batches with an OpenGraph `match_by: name` end
(which the writer resolves) take `prepare_batch` unchanged. `tests/graph/test_store_columns.py` compares the two.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from houndgraph.graph.records import Batch, Cut, EdgeEnd, MatchBy
from houndgraph.graph.store.encoding import json_lines
from houndgraph.graph.store.merge import (
    EdgeRows,
    MergedNode,
    NodeRows,
    PreparedBatch,
    add_kinds,
    distinct_texts,
    placeholder_kinds,
    prepare,
    prepare_batch,
)
from houndgraph.graph.store.properties import StoreProperty

# Edge keys are start * kinds * objects + kind * objects + end: past this many, the batch takes `prepare_batch`.
_KEY_SPAN = 1 << 62


def prepare_for_writer(batch: Batch, lastseen: str) -> PreparedBatch:
    """What `prepare_batch(batch, lastseen).for_writer()` gives, field by field."""
    table: list[EdgeEnd] = []
    position: dict[int, int] = {}
    edges = []
    for edge in batch.edges:
        start, end = edge.start, edge.end
        first = position.get(id(start))
        if first is None:
            first = position[id(start)] = len(table)
            table.append(start)
        last = position.get(id(end))
        if last is None:
            last = position[id(end)] = len(table)
            table.append(end)
        edges.append((first, last, edge.kind, edge.properties))
    return prepare_cut(Cut(batch.nodes, edges, table, batch.deletions, batch.source_kinds), lastseen)


def prepare_cut(cut: Cut, lastseen: str) -> PreparedBatch:
    """What `prepare_batch(cut.batch(), lastseen).for_writer()` gives, field by field."""
    if not cut.edges:
        return _finish(prepare(cut.nodes, ()), cut, lastseen, EdgeRows.of({}, lastseen))
    count = len(cut.edges)
    starts, finishes, kinds, properties = zip(*cut.edges, strict=True)
    start_at = np.array(starts, dtype=np.int64)
    end_at = np.array(finishes, dtype=np.int64)
    # The table's ends that edges name, in the order the edges first name them (start before end): the order in
    # which `merge.prepare` notes them, which decides the order of a placeholder's kinds.
    named = np.empty(2 * count, dtype=np.int64)
    named[0::2], named[1::2] = start_at, end_at
    used, first_named = np.unique(named, return_index=True)
    used = used[np.argsort(first_named, kind="stable")].tolist()
    table = cut.ends
    if any(table[position].match_by != MatchBy.ID for position in used):
        return prepare_batch(cut.batch(), lastseen).for_writer()
    prepared = prepare(cut.nodes, ())
    objectids, numbers = _note_ends(prepared, list(map(table.__getitem__, used)))
    objectid_at = np.zeros(len(table), dtype=np.int64)
    objectid_at[used] = numbers
    kind_names, kind_at = _numbered(kinds)
    objects = len(objectids)
    if objects * objects * max(len(kind_names), 1) >= _KEY_SPAN:
        return prepare_batch(cut.batch(), lastseen).for_writer()
    start_objects, end_objects = objectid_at[start_at], objectid_at[end_at]
    keys = (start_objects * len(kind_names) + kind_at) * objects + end_objects
    _, first, inverse, repeats = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
    if len(first) == count:
        chosen = np.arange(count)
        merged: list[Any] = list(properties)
    else:
        chosen, merged = _merged(properties, first, inverse.reshape(-1), repeats)
    columns = np.stack((start_objects[chosen], kind_at[chosen], end_objects[chosen]), axis=1).astype(np.int32)
    rows = EdgeRows(objectids, kind_names, columns, *_property_texts(merged, lastseen))
    prepared.bare_ends.difference_update(prepared.end_kinds)
    return _finish(prepared, cut, lastseen, rows)


def _finish(prepared: PreparedBatch, cut: Cut, lastseen: str, rows: EdgeRows) -> PreparedBatch:
    prepared.source_records = len(cut)
    prepared.deletions = cut.deletions
    prepared.source_kinds = cut.source_kinds
    prepared.group_end_kinds()
    _encode_nodes(prepared, lastseen)
    prepared.edge_rows = rows
    prepared.records = {}
    prepared.ends = set()
    return prepared


def _encode_nodes(prepared: PreparedBatch, lastseen: str) -> None:
    """`prepared.encode_nodes(lastseen)` with one orjson call per node: the object id and lastseen are written
    into its text, not encoded as a dict of their own and joined (`encoding.with_keys`). Property dicts orjson
    cannot encode plainly (keys that are `str` subclasses), NUL characters and object ids that JSON must escape
    take `encode_nodes`."""
    records = prepared.records
    text = _plain_texts(records)
    if text is None:
        prepared.encode_nodes(lastseen)
        return
    dumps = orjson.dumps
    tail = f'",{dumps(StoreProperty.LAST_SEEN.value).decode()}:{dumps(lastseen).decode()}}}'
    key = f'{dumps(StoreProperty.OBJECT_ID.value).decode()}:"'
    # `with_keys(to_json(properties), stamp)`: an empty object's text is the stamp alone.
    prepared.node_rows = NodeRows.of([
        (objectid, tuple(node.kinds), f"{properties[:-1]},{key}{objectid}{tail}" if len(properties) > 2
         else f"{{{key}{objectid}{tail}")
        for objectid, node, properties in zip(records, records.values(), text.split("\n"), strict=True)
    ])  # fmt: skip
    prepared.record_ids = set(records)


def _plain_texts(records: dict[str, MergedNode]) -> str | None:
    """The records' properties as orjson writes them, one a line; None where `to_json` would write something
    else, or an object id needs escaping in JSON."""
    written = "".join(records)
    if not records or '"' in written or "\\" in written or not written.isprintable():
        return None
    dumps = orjson.dumps
    try:
        text = b"\n".join([dumps(node.properties) for node in records.values()]).decode()
    except TypeError:
        return None
    return None if "\\u0000" in text else text


def _numbered(kinds: tuple[str, ...]) -> tuple[list[str], npt.NDArray[np.int64]]:
    """The distinct kinds (the first object of each value) and each edge's number in them: by identity with numpy,
    then the few distinct objects by value."""
    identities = np.fromiter(map(id, kinds), dtype=np.int64, count=len(kinds))
    _, first, inverse = np.unique(identities, return_index=True, return_inverse=True)
    names: list[str] = []
    number_of: dict[str, int] = {}
    numbers = []
    for index in sorted(first.tolist()):
        kind = kinds[index]
        number = number_of.get(kind)
        if number is None:
            number = number_of[kind] = len(names)
            names.append(kind)
        numbers.append(number)
    # `first` is in identity order; the numbers were given in the order of first use.
    by_identity = np.empty(len(first), dtype=np.int64)
    by_identity[np.argsort(first)] = numbers
    return names, by_identity[inverse.reshape(-1)]


def _merged(properties: tuple[dict[str, Any], ...], first: npt.NDArray[np.intp], inverse: npt.NDArray[np.intp],
            repeats: npt.NDArray[np.intp]) -> tuple[npt.NDArray[np.intp], list[Any]]:
    """The first edge of each key, in the order of first occurrence, with the properties of a key given more than
    once merged into a copy in the order given, as `merge.prepare` merges them."""
    order = np.argsort(first, kind="stable")
    chosen = first[order]
    merged: list[Any] = [properties[index] for index in chosen.tolist()]
    # Each key's edges, in the order given: grouped by key (a stable sort keeps the order within a key).
    grouped = np.argsort(inverse, kind="stable")
    offsets = np.concatenate(([0], np.cumsum(repeats)))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    for key in np.flatnonzero(repeats > 1).tolist():
        members = grouped[offsets[key]:offsets[key + 1]].tolist()
        combined = dict(properties[members[0]])
        for index in members[1:]:
            combined.update(properties[index])
        merged[int(rank[key])] = combined
    return chosen, merged


def _property_texts(properties: list[dict[str, Any]], lastseen: str) -> tuple[list[str], npt.NDArray[np.int32]]:
    """The edges' properties as `EdgeRows.texts` and `text_at`: each distinct dict (by identity) encoded once, equal
    texts kept once."""
    stamp = orjson.dumps({StoreProperty.LAST_SEEN.value: lastseen}).decode()
    identities = np.fromiter(map(id, properties), dtype=np.int64, count=len(properties))
    _, first, inverse = np.unique(identities, return_index=True, return_inverse=True)
    texts, text_at = distinct_texts(json_lines([properties[index] for index in first.tolist()], stamp).split("\n"))
    return texts, text_at[inverse.reshape(-1)]


def _note_ends(prepared: PreparedBatch, ends: list[EdgeEnd]) -> tuple[list[str], list[int]]:
    """The distinct object ids of `ends` (upper-cased) and the number of each end's among them; each distinct
    (object id, kind) noted once in `prepared` as `merge._note_end` notes it."""
    number_of: dict[str, int] = {}
    objectids: list[str] = []
    numbers = []
    seen, records, end_kinds, bare = prepared.ends, prepared.records, prepared.end_kinds, prepared.bare_ends
    for end in ends:
        objectid, kind = end.value.upper(), end.kind
        number = number_of.get(objectid)
        if number is None:
            number = number_of[objectid] = len(objectids)
            objectids.append(objectid)
        numbers.append(number)
        if (objectid, kind) in seen:
            continue
        seen.add((objectid, kind))
        merged = records.get(objectid)
        if kind is None:
            if merged is None and objectid not in end_kinds:
                bare.add(objectid)
            continue
        placeholder = placeholder_kinds(kind)
        if merged is not None:
            add_kinds(merged.kinds, placeholder)
        elif (stored := end_kinds.get(objectid)) is None:
            end_kinds[objectid] = list(placeholder)
        else:
            add_kinds(stored, placeholder)
    return objectids, numbers
