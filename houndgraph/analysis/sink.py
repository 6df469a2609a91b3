"""Writing a rule's result: the derived edges of one kind replace the previous ones, as a diff.

Edges that are still derived keep their row and their `firstseen`, and get the run's `lastseen`; new
ones are inserted with both; those no longer derived are deleted. Self-edges are dropped here, once,
whatever the rule produced (a principal never "can DCSync" towards itself in a useful sense, and the
reference never writes them).

The edges a run may replace are read once, at its start, for every kind its rules produce
(`StoredEdges`): the edge table has no index on the kind alone, so finding a kind's stored edges is a
pass over the whole table, which cost about 0.1 s of database time for each of the 49 kinds, most of
them with nothing stored. The diff is made here; each statement then touches only the rows it
changes, by id, and new edges are copied straight into the table, sorted by key, with their final
properties. Nothing else writes these kinds, or deletes nodes, while a run holds the graph writer's
lock (ingest and Cypher writes take it; clearing the database runs in the datapipe's loop, as
analysis does), so the diff stays true until the run commits and the ends of a new edge exist: the
rules read them in this transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson
from numpy.typing import NDArray

from houndgraph.analysis.context import Context
from houndgraph.graph.arrays import distinct, in_sorted
from houndgraph.graph.store.edges import copy_pieces, copy_text
from houndgraph.graph.store.encoding import copy_json
from houndgraph.graph.store.sql import COPY_NEW_EDGES

Pair = tuple[int, int]
# Edges per piece of a kind's COPY text.
COPY_SLICE = 50_000
# Bare pairs as an (n, 2) array of (start, end) node ids, in any order, repeats allowed: what rules deriving
# millions of edges give (the GPO rule), diffed and copied with no Python code per edge.
PairArray = NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class GroupedPairs:
    """Pairs with edge properties that many share, as (properties, `PairArray`) groups: the Owns rule's million
    edges carry a handful of distinct inheritance data, so they are diffed and copied a group at a time, with no
    Python code per edge. A pair given in two groups takes the first group's properties."""

    groups: tuple[tuple[Mapping[str, Any], PairArray], ...]

    def as_mapping(self) -> dict[Pair, Mapping[str, Any]]:
        found: dict[Pair, Mapping[str, Any]] = {}
        for properties, pairs in self.groups:
            for pair in zip(pairs[:, 0].tolist(), pairs[:, 1].tolist(), strict=True):
                found.setdefault(pair, properties)
        return found


# Bare pairs, or pairs with extra edge properties (e.g. Owns keeps the ACE's inheritance data), or a `PairArray`,
# or pairs grouped by their properties.
EdgeSet = Iterable[Pair] | Mapping[Pair, Mapping[str, Any]] | PairArray | GroupedPairs
# Groups of kept edges refreshed one statement each; past this many, the kept edges are staged as one table.
_GROUP_STATEMENTS = 64
# Node ids below this pack two to an int64 key (start << 32 | end) for the array diff; larger ids take the sets.
_PACKABLE = 1 << 31

# Each column read as one bytea of big-endian int8s, per kind: one client round for the whole table.
_STORED = """
SELECT kind_id, string_agg(int8send(id), ''::bytea), string_agg(int8send(start_id), ''::bytea),
       string_agg(int8send(end_id), ''::bytea)
FROM edge WHERE kind_id = ANY(%s) GROUP BY kind_id
"""
# The edges still derived: their ids and their properties as the rule gives them.
_STAGE = """
CREATE TEMP TABLE IF NOT EXISTS hg_kept (
    edge_id bigint NOT NULL,
    properties text NOT NULL
) ON COMMIT DELETE ROWS
"""
_DELETE_GONE = "DELETE FROM edge WHERE id = ANY(%s::bigint[])"
# Kept edges with no properties of their own (most kinds): by id, which walks the primary key (a join with the
# staged ids was planned as a pass over the whole edge table).
_REFRESH_KEPT_BARE = """
UPDATE edge AS e
SET properties = e.properties || jsonb_build_object('lastseen', %(now)s::text)
                 || (CASE WHEN e.properties ? 'firstseen' THEN '{}'::jsonb
                     ELSE jsonb_build_object('firstseen', %(now)s::text) END)
WHERE e.id = ANY(%(ids)s::bigint[])
"""
# Kept edges of one group of `GroupedPairs`: the group's properties for all of them, by id.
_REFRESH_KEPT_GROUP = """
UPDATE edge AS e
SET properties = e.properties || (%(properties)s::jsonb - 'firstseen') || jsonb_build_object('lastseen', %(now)s::text)
                 || (CASE WHEN e.properties ? 'firstseen' THEN '{}'::jsonb
                     ELSE jsonb_build_object('firstseen', %(now)s::text) END)
WHERE e.id = ANY(%(ids)s::bigint[])
"""
_REFRESH_KEPT = """
UPDATE edge AS e
SET properties = e.properties || (k.properties::jsonb - 'firstseen') || jsonb_build_object('lastseen', %(now)s::text)
                 || (CASE WHEN e.properties ? 'firstseen' THEN '{}'::jsonb
                     ELSE jsonb_build_object('firstseen', %(now)s::text) END)
FROM hg_kept k
WHERE e.id = k.edge_id
"""


@dataclass(slots=True)
class EdgeCounts:
    total: int = 0  # derived edges of the kind after the run
    created: int = 0  # new this run
    deleted: int = 0  # no longer derived


@dataclass(slots=True)
class StoredEdges:
    """The stored edges of the kinds a run derives, as the run began: kind id -> (edge ids, starts, ends). Kept
    as arrays (24 bytes an edge) and turned into a look-up one kind at a time, as each is replaced."""

    by_kind: dict[int, tuple[NDArray[np.int64], ...]] = field(default_factory=dict)

    @classmethod
    def load(cls, ctx: Context, kinds: Iterable[str]) -> StoredEdges:
        kind_ids = ctx.kind_ids(sorted(set(kinds)))
        stored = cls()
        if not kind_ids:
            return stored
        for kind_id, *columns in ctx.conn.execute(_STORED, (kind_ids,), binary=True):
            stored.by_kind[kind_id] = tuple(np.frombuffer(column, dtype=">i8").astype(np.int64) for column in columns)
        return stored

    def take_columns(self, kind_id: int) -> tuple[NDArray[np.int64], ...]:
        """The kind's stored edges as (edge ids, starts, ends); no longer held here."""
        empty = np.zeros(0, dtype=np.int64)
        return self.by_kind.pop(kind_id, None) or (empty, empty, empty)

    def take(self, kind_id: int) -> dict[Pair, int]:
        """The kind's stored edges, (start, end) -> edge id; the caller replaces them, so they are no longer held
        here."""
        columns = self.by_kind.pop(kind_id, None)
        if columns is None:
            return {}
        ids, starts, ends = (column.tolist() for column in columns)
        return dict(zip(zip(starts, ends, strict=True), ids, strict=True))


def write_kind(ctx: Context, kind: str, edges: EdgeSet, stored: StoredEdges) -> EdgeCounts:
    conn = ctx.conn
    kind_id = ctx.catalogue.id(kind)
    if isinstance(edges, GroupedPairs):
        columns = stored.take_columns(kind_id)
        if _packable(*(pairs for _, pairs in edges.groups), *columns[1:]):
            return _write_groups(ctx, kind_id, edges, *columns)
        stored.by_kind[kind_id] = columns
        edges = edges.as_mapping()
    if isinstance(edges, np.ndarray):
        columns = stored.take_columns(kind_id)
        if _packable(edges, *columns[1:]):
            return _write_array(ctx, kind_id, edges, *columns)
        edges = set(zip(edges[:, 0].tolist(), edges[:, 1].tolist(), strict=True))
        stored.by_kind[kind_id] = columns
    properties = edges if isinstance(edges, Mapping) else None
    derived = {pair for pair in edges if pair[0] != pair[1]}
    existing = stored.take(kind_id)
    counts = EdgeCounts()
    gone = sorted(edge for pair, edge in existing.items() if pair not in derived)
    if gone:
        counts.deleted = max(conn.execute(_DELETE_GONE, (gone,)).rowcount, 0)
    kept = sorted(derived & existing.keys())
    if kept and properties is None:
        ids = sorted(existing[pair] for pair in kept)
        counts.total = max(conn.execute(_REFRESH_KEPT_BARE, {"now": ctx.lastseen, "ids": ids}).rowcount, 0)
    elif kept and properties is not None:
        counts.total = _refresh_kept(ctx, properties, {pair: existing[pair] for pair in kept})
    new = sorted(derived - existing.keys())
    if new:
        stamps = {"lastseen": ctx.lastseen, "firstseen": ctx.lastseen}
        bare = _json(None, (0, 0), stamps) if properties is None else None  # the same for every edge
        with conn.cursor().copy(COPY_NEW_EDGES) as copy:
            for chunk in _chunks(new):
                copy.write(copy_text((start, end, kind_id, bare or _json(properties, (start, end), stamps))
                                     for start, end in chunk))
        counts.created = len(new)
        counts.total += len(new)
    return counts


def _refresh_kept(ctx: Context, properties: Mapping[Pair, Mapping[str, Any]], kept: dict[Pair, int]) -> int:
    """Give each kept edge (pair -> edge id) its properties as the rule gives them and the run's `lastseen`, through
    a staged table; how many rows that updated."""
    conn = ctx.conn
    conn.execute(_STAGE)
    conn.execute("TRUNCATE hg_kept")
    with conn.cursor().copy("COPY hg_kept (edge_id, properties) FROM STDIN") as copy:
        for chunk in _chunks(sorted(kept)):
            text = "".join([f"{kept[pair]}\t{_json(properties, pair, {})}\n" for pair in chunk])
            copy.write(text.replace("\\", "\\\\"))  # orjson writes no raw tab or newline: see `copy_text`
    if len(kept) > 5000:
        # A fresh temporary table has no statistics; without them the planner guesses its join blind.
        conn.execute("ANALYZE hg_kept")
    return max(conn.execute(_REFRESH_KEPT, {"now": ctx.lastseen}).rowcount, 0)


def _packable(*arrays: NDArray[np.int64]) -> bool:
    return all(not len(array) or (int(array.min()) >= 0 and int(array.max()) < _PACKABLE) for array in arrays)


def _write_array(ctx: Context, kind_id: int, pairs: PairArray, ids: NDArray[np.int64], starts: NDArray[np.int64],
                 ends: NDArray[np.int64]) -> EdgeCounts:
    """`write_kind` of bare pairs given as an array, against the kind's stored edges (ids, starts, ends): the same
    statements, with the diff made on packed keys by numpy."""
    conn = ctx.conn
    pairs = pairs.reshape(-1, 2).astype(np.int64, copy=False)
    derived = distinct((pairs[:, 0] << 32) | pairs[:, 1])  # sorted by (start, end)
    derived = derived[(derived >> 32) != (derived & 0xFFFFFFFF)]
    existing = (starts << 32) | ends
    counts = EdgeCounts()
    still = in_sorted(existing, derived)
    gone = np.sort(ids[~still])
    if len(gone):
        counts.deleted = max(conn.execute(_DELETE_GONE, (gone.tolist(),)).rowcount, 0)
    kept = np.sort(ids[still])
    if len(kept):
        counts.total = max(conn.execute(_REFRESH_KEPT_BARE, {"now": ctx.lastseen, "ids": kept.tolist()}).rowcount, 0)
    new = derived[~in_sorted(derived, np.sort(existing))]
    if len(new):
        stamps = {"lastseen": ctx.lastseen, "firstseen": ctx.lastseen}
        text = f"\t{copy_json(_json(None, (0, 0), stamps))}\n".encode()
        with conn.cursor().copy(COPY_NEW_EDGES) as copy:
            for piece in copy_pieces(new >> 32, new & 0xFFFFFFFF, np.full(len(new), kind_id, dtype=np.int64), [text],
                                     np.zeros(len(new), dtype=np.int32), rows_per_piece=COPY_SLICE):
                copy.write(piece)
        counts.created = len(new)
        counts.total += len(new)
    return counts


def _write_groups(ctx: Context, kind_id: int, edges: GroupedPairs, ids: NDArray[np.int64],
                  starts: NDArray[np.int64], ends: NDArray[np.int64]) -> EdgeCounts:
    """`write_kind` of pairs grouped by their properties: the diff of `_write_array`, each kept edge refreshed with
    its group's properties (one statement per group), the new ones copied with their group's JSON."""
    if not edges.groups:
        return _write_array(ctx, kind_id, np.empty((0, 2), dtype=np.int64), ids, starts, ends)
    conn = ctx.conn
    keys = np.concatenate([(pairs[:, 0].astype(np.int64) << 32) | pairs[:, 1].astype(np.int64)
                           for _, pairs in edges.groups])
    group_of = np.concatenate([np.full(len(pairs), at, dtype=np.int64) for at, (_, pairs) in enumerate(edges.groups)])
    order = np.lexsort((group_of, keys))  # by key, then group: the first group of a repeated pair first
    keys, group_of = keys[order], group_of[order]
    first = np.ones(len(keys), dtype=np.bool_)
    first[1:] = keys[1:] != keys[:-1]
    first &= (keys >> 32) != (keys & 0xFFFFFFFF)
    derived, group_of = keys[first], group_of[first]
    existing = (starts << 32) | ends
    counts = EdgeCounts()
    still = in_sorted(existing, derived)
    gone = np.sort(ids[~still])
    if len(gone):
        counts.deleted = max(conn.execute(_DELETE_GONE, (gone.tolist(),)).rowcount, 0)
    if still.any():
        kept_ids, kept_group = ids[still], group_of[np.searchsorted(derived, existing[still])]
        present = distinct(kept_group).tolist()
        if len(present) <= _GROUP_STATEMENTS:
            for at in present:
                counts.total += max(conn.execute(_REFRESH_KEPT_GROUP, {
                    "properties": orjson.dumps(edges.groups[at][0]).decode(), "now": ctx.lastseen,
                    "ids": np.sort(kept_ids[kept_group == at]).tolist()}).rowcount, 0)
        else:
            pairs = zip(starts[still].tolist(), ends[still].tolist(), strict=True)
            kept = dict(zip(pairs, kept_ids.tolist(), strict=True))
            properties = {pair: edges.groups[at][0] for pair, at in zip(kept, kept_group.tolist(), strict=True)}
            counts.total = _refresh_kept(ctx, properties, kept)
    fresh = ~in_sorted(derived, np.sort(existing))
    new, new_group = derived[fresh], group_of[fresh]
    if len(new):
        stamps = {"lastseen": ctx.lastseen, "firstseen": ctx.lastseen}
        texts = [f"\t{copy_json(orjson.dumps({**properties, **stamps}).decode())}\n".encode()
                 for properties, _ in edges.groups]
        with conn.cursor().copy(COPY_NEW_EDGES) as copy:
            for piece in copy_pieces(new >> 32, new & 0xFFFFFFFF, np.full(len(new), kind_id, dtype=np.int64), texts,
                                     new_group.astype(np.int32), rows_per_piece=COPY_SLICE):
                copy.write(piece)
        counts.created = len(new)
        counts.total += len(new)
    return counts


def _chunks(pairs: list[Pair]) -> Iterable[list[Pair]]:
    """`pairs` a slice at a time: a kind's COPY text is built and sent in pieces, so a million derived edges
    never sit in memory as one text (and its escaped and encoded copies)."""
    for first in range(0, len(pairs), COPY_SLICE):
        yield pairs[first:first + COPY_SLICE]


def _json(properties: Mapping[Pair, Mapping[str, Any]] | None, pair: Pair, stamps: dict[str, str]) -> str:
    """The edge's own properties (a rule's, if it gives any) with `stamps`, as JSON."""
    return orjson.dumps({**(properties[pair] if properties is not None else {}), **stamps}).decode()
