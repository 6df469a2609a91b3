"""What the planner knows of the graph's size: rows per node kind and per edge kind, as PostgreSQL's own
statistics (ANALYZE, autovacuum) estimate them. Reading them costs one small catalogue query, nothing
that scans the graph; a graph never analysed has none, and the planner then ranks ends by their filters
alone.

They change only when PostgreSQL analyses the graph, after writes: each process keeps what it read, and reads
again when the graph generation (migration 0019) has moved since, or after `MAX_AGE_SECONDS` (an ANALYZE
that ends after the last write of an ingest moves no generation). They only choose where a walk starts,
never what a query answers, so an old reading costs at most a slower plan for that long."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

import psycopg

MAX_AGE_SECONDS = 30.0

# Node kinds from the element statistics of node.kind_ids, edge kinds from the common values of
# edge.kind_id. A kind missing from them is rarer than the rarest listed: bounded by that one.
_READ = """
SELECT (SELECT reltuples FROM pg_class WHERE oid = 'node'::regclass),
       (SELECT reltuples FROM pg_class WHERE oid = 'edge'::regclass),
       (SELECT most_common_elems::text::int[] FROM pg_stats WHERE tablename = 'node' AND attname = 'kind_ids'
        AND schemaname = current_schema()),
       (SELECT most_common_elem_freqs FROM pg_stats WHERE tablename = 'node' AND attname = 'kind_ids'
        AND schemaname = current_schema()),
       (SELECT most_common_vals::text::int[] FROM pg_stats WHERE tablename = 'edge' AND attname = 'kind_id'
        AND schemaname = current_schema()),
       (SELECT most_common_freqs FROM pg_stats WHERE tablename = 'edge' AND attname = 'kind_id'
        AND schemaname = current_schema())
"""


@dataclass(frozen=True)
class KindStatistics:
    nodes: float
    edges: float
    node_kinds: Mapping[int, float]  # kind id -> estimated nodes of that kind
    edge_kinds: Mapping[int, float]  # kind id -> estimated edges of that kind

    def nodes_of(self, kind_ids: list[int]) -> float:
        """Estimated nodes holding any of `kind_ids`."""
        rare = min(self.node_kinds.values(), default=self.nodes)
        return min(self.nodes, sum(self.node_kinds.get(k, rare) for k in kind_ids))

    def edges_of(self, kind_ids: list[int]) -> float:
        rare = min(self.edge_kinds.values(), default=self.edges)
        return min(self.edges, sum(self.edge_kinds.get(k, rare) for k in kind_ids))


@dataclass(frozen=True)
class _Reading:
    database: tuple[str, str]
    generation: int
    read_at: float
    statistics: KindStatistics | None


_last: _Reading | None = None


async def kind_statistics(conn: psycopg.AsyncConnection, generation: int | None = None) -> KindStatistics | None:
    """The statistics, read again unless this process read them at `generation` less than
    `MAX_AGE_SECONDS` ago. Without a generation they are always read."""
    global _last
    now = time.monotonic()
    last = _last
    database = (conn.info.dbname, str(conn.info.port))
    if generation is not None and last is not None and last.generation == generation \
            and last.database == database and now - last.read_at < MAX_AGE_SECONDS:
        return last.statistics
    statistics = await read_kind_statistics(conn)
    if generation is not None:
        _last = _Reading(database, generation, now, statistics)
    return statistics


async def read_kind_statistics(conn: psycopg.AsyncConnection) -> KindStatistics | None:
    """The statistics as the database has them now (one catalogue query)."""
    cursor = await conn.execute(_READ)
    row = await cursor.fetchone()
    if row is None:
        return None
    nodes, edges, node_kinds, node_freqs, edge_kinds, edge_freqs = row
    if not nodes or nodes < 0 or not node_kinds or not node_freqs:
        return None
    edges = max(edges or 0.0, 0.0)
    # most_common_elem_freqs ends with three summary numbers (min, max, null fraction).
    by_node_kind = {kind: nodes * freq for kind, freq in zip(node_kinds, node_freqs, strict=False)}
    by_edge_kind = {kind: edges * freq for kind, freq in zip(edge_kinds or [], edge_freqs or [], strict=False)}
    return KindStatistics(nodes, edges, by_node_kind, by_edge_kind)
