"""Writing a rule's result: the derived edges of one kind replace the previous ones, as a diff.

Edges that are still derived keep their row and their `firstseen`, and get the run's `lastseen`; new
ones are inserted with both; those no longer derived are deleted. Self-edges are dropped here, once,
whatever the rule produced (a principal never "can DCSync" towards itself in a useful sense, and the
reference never writes them).

The edges a run may replace are read once, at its start, for every kind its rules produce
(`StoredEdges`): the edge table has no index on the kind alone, so finding a kind's stored edges is a
pass over the whole table, which cost about 0.1 s of database time for each of the 49 kinds, most of
them with nothing stored. The diff is made here; each statement then touches only the rows it
changes, by id, and new edges are plain inserts. Nothing else writes these kinds while a run holds
the graph writer's lock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson

from houndgraph.analysis.context import Context

Pair = tuple[int, int]
# Either bare pairs, or pairs with extra edge properties (e.g. Owns keeps the ACE's inheritance data).
EdgeSet = Iterable[Pair] | Mapping[Pair, Mapping[str, Any]]

# Each column read as one bytea of big-endian int8s, per kind: one client round for the whole table.
_STORED = """
SELECT kind_id, string_agg(int8send(id), ''::bytea), string_agg(int8send(start_id), ''::bytea),
       string_agg(int8send(end_id), ''::bytea)
FROM edge WHERE kind_id = ANY(%s) GROUP BY kind_id
"""
_STAGE = """
CREATE TEMP TABLE IF NOT EXISTS hg_derived (
    edge_id bigint,
    start_id bigint NOT NULL,
    end_id bigint NOT NULL,
    properties text NOT NULL
) ON COMMIT DELETE ROWS
"""
_DELETE_GONE = "DELETE FROM edge WHERE id = ANY(%s::bigint[])"
_REFRESH_KEPT = """
UPDATE edge AS e
SET properties = e.properties || (d.properties::jsonb - 'firstseen') || jsonb_build_object('lastseen', %(now)s::text)
                 || (CASE WHEN e.properties ? 'firstseen' THEN '{}'::jsonb
                     ELSE jsonb_build_object('firstseen', %(now)s::text) END)
FROM hg_derived d
WHERE d.edge_id IS NOT NULL AND e.id = d.edge_id
"""
# Only between nodes that exist (a rule reads them in this transaction, but a node's deletion is not
# the rule's business); in key order, the order every writer follows.
_INSERT_NEW = """
INSERT INTO edge (start_id, end_id, kind_id, properties)
SELECT d.start_id, d.end_id, %(kind)s,
       d.properties::jsonb || jsonb_build_object('lastseen', %(now)s::text, 'firstseen', %(now)s::text)
FROM hg_derived d
WHERE d.edge_id IS NULL
  AND EXISTS (SELECT 1 FROM node s WHERE s.id = d.start_id) AND EXISTS (SELECT 1 FROM node t WHERE t.id = d.end_id)
ORDER BY d.start_id, d.end_id
"""


@dataclass(slots=True)
class EdgeCounts:
    total: int = 0  # derived edges of the kind after the run
    created: int = 0  # new this run
    deleted: int = 0  # no longer derived


@dataclass(slots=True)
class StoredEdges:
    """Kind id -> (start, end) -> edge id: the stored edges of the kinds a run derives, as the run began."""

    by_kind: dict[int, dict[Pair, int]] = field(default_factory=dict)

    @classmethod
    def load(cls, ctx: Context, kinds: Iterable[str]) -> StoredEdges:
        kind_ids = ctx.kind_ids(sorted(set(kinds)))
        stored = cls()
        if not kind_ids:
            return stored
        for kind_id, *columns in ctx.conn.execute(_STORED, (kind_ids,), binary=True):
            ids, starts, ends = (np.frombuffer(column, dtype=">i8").tolist() for column in columns)
            stored.by_kind[kind_id] = dict(zip(zip(starts, ends, strict=True), ids, strict=True))
        return stored

    def take(self, kind_id: int) -> dict[Pair, int]:
        """The kind's stored edges; the caller replaces them, so they are no longer held here."""
        return self.by_kind.pop(kind_id, {})


def write_kind(ctx: Context, kind: str, edges: EdgeSet, stored: StoredEdges) -> EdgeCounts:
    conn = ctx.conn
    kind_id = ctx.catalogue.id(kind)
    derived = _derived(edges)
    existing = stored.take(kind_id)
    counts = EdgeCounts()
    gone = sorted(edge for pair, edge in existing.items() if pair not in derived)
    if gone:
        counts.deleted = max(conn.execute(_DELETE_GONE, (gone,)).rowcount, 0)
    if not derived:
        return counts
    conn.execute(_STAGE)
    conn.execute("TRUNCATE hg_derived")
    with conn.cursor().copy("COPY hg_derived (edge_id, start_id, end_id, properties) FROM STDIN") as copy:
        for pair in sorted(derived):
            copy.write_row((existing.get(pair), pair[0], pair[1], derived[pair]))
    if len(derived) > 5000:
        # A fresh temporary table has no statistics; without them the planner guesses its joins blind.
        conn.execute("ANALYZE hg_derived")
    kept = conn.execute(_REFRESH_KEPT, {"now": ctx.lastseen}).rowcount if len(existing) > len(gone) else 0
    if len(derived) > len(existing) - len(gone):
        counts.created = conn.execute(_INSERT_NEW, {"kind": kind_id, "now": ctx.lastseen}).rowcount
    counts.total = max(kept, 0) + max(counts.created, 0)
    return counts


def _derived(edges: EdgeSet) -> dict[Pair, str]:
    """(start, end) -> the edge's own properties as JSON, self-edges left out."""
    if isinstance(edges, Mapping):
        return {(start, end): orjson.dumps(dict(properties)).decode()
                for (start, end), properties in edges.items() if start != end}
    return {(start, end): "{}" for start, end in edges if start != end}
