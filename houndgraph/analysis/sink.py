"""Writing a rule's result: the derived edges of one kind replace the previous ones, as a diff.

Edges that are still derived keep their row and their `firstseen`, and get the run's `lastseen`; new
ones are inserted with both; those no longer derived are deleted. Self-edges are dropped here, once,
whatever the rule produced (a principal never "can DCSync" towards itself in a useful sense, and the
reference never writes them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from houndgraph.analysis.context import Context

Pair = tuple[int, int]
# Either bare pairs, or pairs with extra edge properties (e.g. Owns keeps the ACE's inheritance data).
EdgeSet = Iterable[Pair] | Mapping[Pair, Mapping[str, Any]]

_STAGE = """
CREATE TEMP TABLE IF NOT EXISTS hg_derived (
    start_id bigint NOT NULL,
    end_id bigint NOT NULL,
    properties text NOT NULL
) ON COMMIT DELETE ROWS
"""
_DELETE_STALE = """
DELETE FROM edge AS e
WHERE e.kind_id = %(kind)s
  AND NOT EXISTS (SELECT 1 FROM hg_derived d WHERE d.start_id = e.start_id AND d.end_id = e.end_id)
"""
# Sorted by key so two writers (analysis and an ingest task) lock rows in one order.
_UPSERT = """
WITH written AS (
    INSERT INTO edge AS e (start_id, end_id, kind_id, properties)
    SELECT d.start_id, d.end_id, %(kind)s,
           d.properties::jsonb || jsonb_build_object('lastseen', %(now)s::text, 'firstseen', %(now)s::text)
    FROM hg_derived d
    JOIN node s ON s.id = d.start_id
    JOIN node t ON t.id = d.end_id
    ORDER BY d.start_id, d.end_id
    ON CONFLICT (start_id, kind_id, end_id) DO UPDATE
    SET properties = e.properties || (EXCLUDED.properties - 'firstseen')
                     || (CASE WHEN e.properties ? 'firstseen' THEN '{}'::jsonb
                         ELSE jsonb_build_object('firstseen', %(now)s::text) END)
    RETURNING xmax::text = '0' AS inserted
)
SELECT count(*) FILTER (WHERE inserted), count(*) FROM written
"""


@dataclass(slots=True)
class EdgeCounts:
    total: int = 0  # derived edges of the kind after the run
    created: int = 0  # new this run
    deleted: int = 0  # no longer derived


def write_kind(ctx: Context, kind: str, edges: EdgeSet) -> EdgeCounts:
    conn = ctx.conn
    kind_id = ctx.catalogue.id(kind)
    conn.execute(_STAGE)
    conn.execute("TRUNCATE hg_derived")
    rows = _rows(edges)
    with conn.cursor().copy("COPY hg_derived (start_id, end_id, properties) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
    if len(rows) > 5000:
        # A fresh temporary table has no statistics; without them the anti-join below can go quadratic.
        conn.execute("ANALYZE hg_derived")
    deleted = conn.execute(_DELETE_STALE, {"kind": kind_id}).rowcount
    created, total = 0, 0
    if rows:
        result = conn.execute(_UPSERT, {"kind": kind_id, "now": ctx.lastseen}).fetchone()
        assert result is not None
        created, total = result
    return EdgeCounts(total=total, created=created, deleted=max(deleted, 0))


def _rows(edges: EdgeSet) -> list[tuple[int, int, str]]:
    if isinstance(edges, Mapping):
        return sorted(
            (start, end, orjson.dumps(dict(properties)).decode())
            for (start, end), properties in edges.items() if start != end
        )
    return sorted((start, end, "{}") for start, end in set(edges) if start != end)
