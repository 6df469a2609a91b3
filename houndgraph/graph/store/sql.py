"""The store's SQL. Values are always bound; the only interpolation is of the constant fragments below."""

from __future__ import annotations

# One writer at a time per database (see GraphStore): an arbitrary constant, "hgwrite".
WRITE_LOCK_ID = 0x6867777269746500

STAGE_NODE = """
CREATE TEMP TABLE IF NOT EXISTS hg_stage_node (
    objectid text NOT NULL,
    kind_ids smallint[] NOT NULL,
    properties text NOT NULL
) ON COMMIT DELETE ROWS
"""
STAGE_EDGE = """
CREATE TEMP TABLE IF NOT EXISTS hg_stage_edge (
    start_objectid text NOT NULL,
    end_objectid text NOT NULL,
    kind_id smallint NOT NULL,
    properties text NOT NULL
) ON COMMIT DELETE ROWS
"""
COPY_NODES = "COPY hg_stage_node (objectid, kind_ids, properties) FROM STDIN (FORMAT BINARY)"
COPY_EDGES = "COPY hg_stage_edge (start_objectid, end_objectid, kind_id, properties) FROM STDIN (FORMAT BINARY)"

# Union of kind ids that keeps the stored ones first (they decide the display kind).
_KIND_UNION = """
    CASE WHEN node.kind_ids @> EXCLUDED.kind_ids THEN node.kind_ids
    ELSE node.kind_ids || ARRAY(
        SELECT k FROM unnest(EXCLUDED.kind_ids) WITH ORDINALITY AS u (k, i)
        WHERE k <> ALL (node.kind_ids) ORDER BY i
    ) END
"""
# `stored || new`, but `collected: true` is never taken back (merge.merge_properties is the same rule).
_PROPERTY_MERGE = """
    CASE WHEN node.properties -> 'collected' = 'true' AND EXCLUDED.properties -> 'collected' = 'false'
    THEN node.properties || EXCLUDED.properties || '{"collected": true}'::jsonb
    ELSE node.properties || EXCLUDED.properties END
"""

# Full records. Rows that would not change are left alone: no dead tuple, no index churn, and a
# re-ingest of identical data within one `seen_at` writes nothing. Sorted by object id so concurrent
# writers lock rows in one order.
UPSERT_RECORDS = f"""
INSERT INTO node AS node (kind_ids, properties)
SELECT kind_ids, properties::jsonb || jsonb_build_object('objectid', objectid, 'lastseen', %(lastseen)s::text)
FROM hg_stage_node
ORDER BY objectid
ON CONFLICT ((properties ->> 'objectid')) DO UPDATE
SET kind_ids = {_KIND_UNION}, properties = {_PROPERTY_MERGE}
WHERE NOT (node.kind_ids @> EXCLUDED.kind_ids AND node.properties = ({_PROPERTY_MERGE}))
"""

# Edge ends that name a kind: a placeholder if the object is new, else only the kinds are added.
# Returns one row per node inserted or changed; `inserted` tells placeholders apart.
UPSERT_KINDED_ENDS = f"""
WITH written AS (
    INSERT INTO node AS node (kind_ids, properties)
    SELECT kind_ids, jsonb_build_object('objectid', objectid, 'lastseen', %(lastseen)s::text)
    FROM hg_stage_node
    ORDER BY objectid
    ON CONFLICT ((properties ->> 'objectid')) DO UPDATE
    SET kind_ids = {_KIND_UNION}
    WHERE NOT node.kind_ids @> EXCLUDED.kind_ids
    RETURNING xmax::text = '0' AS inserted
)
SELECT count(*) FILTER (WHERE inserted) FROM written
"""

# Edge ends without a kind: a placeholder if the object is new, otherwise nothing.
INSERT_BARE_ENDS = """
INSERT INTO node (kind_ids, properties)
SELECT %(kind_ids)s::smallint[], jsonb_build_object('objectid', objectid, 'lastseen', %(lastseen)s::text)
FROM unnest(%(objectids)s::text[]) AS objectid
ORDER BY objectid
ON CONFLICT ((properties ->> 'objectid')) DO NOTHING
"""

RESOLVE_NAMES = """
SELECT properties ->> 'name', properties ->> 'objectid', kind_ids
FROM node
WHERE properties ->> 'name' = ANY(%(names)s::text[])
"""

UPSERT_EDGES = """
INSERT INTO edge AS edge (start_id, end_id, kind_id, properties)
SELECT s.id, e.id, staged.kind_id, staged.properties::jsonb || %(stamp)s::jsonb
FROM hg_stage_edge AS staged
JOIN node AS s ON s.properties ->> 'objectid' = staged.start_objectid
JOIN node AS e ON e.properties ->> 'objectid' = staged.end_objectid
ORDER BY s.id, staged.kind_id, e.id
ON CONFLICT (start_id, kind_id, end_id) DO UPDATE
SET properties = edge.properties || EXCLUDED.properties
WHERE edge.properties <> edge.properties || EXCLUDED.properties
"""

DELETE_NODES = """
DELETE FROM node WHERE properties ->> 'objectid' = ANY(%(objectids)s::text[])
"""
