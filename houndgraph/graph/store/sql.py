"""The store's SQL. Values are always bound; the only interpolation is of the constant fragments below."""

from __future__ import annotations

# One writer at a time per database (see GraphStore): an arbitrary constant, "hgwrite".
WRITE_LOCK_ID = 0x6867777269746500

# The writer lock, the transaction's id to notice when a new transaction has begun, and whether the inbound edge
# index exists (a bulk job builds it after its files: `bulk.py`).
BEGIN_WRITE = """
SELECT pg_current_xact_id()::text, to_regclass('edge_end_kind_start_idx') IS NOT NULL
FROM pg_advisory_xact_lock(%s)
"""

# Sorting a staged batch (edges with their properties) in memory rather than in temporary files.
STAGING_WORK_MEM = "64MB"

# Temporary (hence unlogged, session-private) staging tables, emptied at commit and before each use.
STAGE_NODE = """
CREATE TEMP TABLE IF NOT EXISTS hg_stage_node (
    objectid text NOT NULL,
    kind_ids text NOT NULL,
    properties text NOT NULL
) ON COMMIT DELETE ROWS
"""
STAGE_EDGE = """
CREATE TEMP TABLE IF NOT EXISTS hg_stage_edge (
    start_id bigint NOT NULL,
    end_id bigint NOT NULL,
    kind_id smallint NOT NULL,
    properties text NOT NULL
) ON COMMIT DELETE ROWS
"""


def _clear_if_used(table: str) -> str:
    # A TRUNCATE gives the table a new file (and its TOAST table and index), some 0.3-3 ms, and is needed only
    # when this transaction staged rows before: the commit that ended the last one emptied the table.
    return f"IF EXISTS (SELECT FROM {table}) THEN TRUNCATE {table}; END IF;"


# A writer's transaction, once: the node staging table, and `work_mem` raised for the rest of the transaction
# (never lowered below what the session set), in one round trip.
PREPARE_TRANSACTION = f"""
DO $$ BEGIN
    {STAGE_NODE};
    IF pg_size_bytes(current_setting('work_mem')) < pg_size_bytes('{STAGING_WORK_MEM}') THEN
        PERFORM set_config('work_mem', '{STAGING_WORK_MEM}', true);
    END IF;
END $$
"""
CLEAR_STAGED_NODES = f"DO $$ BEGIN {_clear_if_used('hg_stage_node')} END $$"
# The edge staging table, created if need be and emptied, in one round trip.
PREPARE_STAGED_EDGES = f"DO $$ BEGIN {STAGE_EDGE}; {_clear_if_used('hg_stage_edge')} END $$"
# Lists of values are bound as one JSON array (orjson encodes it in C; psycopg would dump a Python
# list into a PostgreSQL array element by element, in Python).
#
# Records are staged in text format, each kind list's rows in one piece (`merge.NodeRows`): kind lists (array
# literals built once per distinct list) and properties (JSON) travel as text and are parsed once, by the casts in
# the upserts: much cheaper than psycopg's Python-level array dumper.
COPY_NODE_TEXT = "COPY hg_stage_node (objectid, properties, kind_ids) FROM STDIN"
# Edges are sent in text format, a batch in one piece (`edges.copy_text`).
COPY_EDGES = "COPY hg_stage_edge (start_id, end_id, kind_id, properties) FROM STDIN"
# Edges that cannot exist yet go straight into the table.
COPY_NEW_EDGES = "COPY edge (start_id, end_id, kind_id, properties) FROM STDIN"

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

# Full records, their JSON already carrying objectid and lastseen. A row that would not change is left
# alone: no dead tuple, no index churn. Sorted by object id (byte order, as Python sorts) so concurrent
# writers lock rows in one order.
UPSERT_RECORDS = f"""
INSERT INTO node AS node (kind_ids, properties)
SELECT kind_ids::smallint[], properties::jsonb
FROM hg_stage_node
ORDER BY objectid COLLATE "C"
ON CONFLICT ((properties ->> 'objectid')) DO UPDATE
SET kind_ids = {_KIND_UNION}, properties = {_PROPERTY_MERGE}
WHERE NOT (node.kind_ids @> EXCLUDED.kind_ids AND node.properties = ({_PROPERTY_MERGE}))
RETURNING properties ->> 'objectid', id, kind_ids::text, (xmax::text = '0')::int AS created
"""

# Edge ends that name a kind: a placeholder if the object is new, else only missing kinds are added
# (the stored properties, lastseen included, describe the object's own record and stay as they are).
# `created` (no previous row version) tells placeholders from existing nodes.
UPSERT_KINDED_ENDS = f"""
INSERT INTO node AS node (kind_ids, properties)
SELECT (e ->> 1)::smallint[], jsonb_build_object('objectid', e ->> 0, 'lastseen', %(lastseen)s::text)
FROM jsonb_array_elements(%(ends)s::jsonb) AS e
ORDER BY (e ->> 0) COLLATE "C"
ON CONFLICT ((properties ->> 'objectid')) DO UPDATE
SET kind_ids = {_KIND_UNION}
WHERE NOT node.kind_ids @> EXCLUDED.kind_ids
RETURNING properties ->> 'objectid', id, kind_ids::text, (xmax::text = '0')::int AS created
"""

# Edge ends without a kind: a placeholder if the object is new, otherwise nothing.
INSERT_BARE_ENDS = """
INSERT INTO node (kind_ids, properties)
SELECT %(kind_ids)s::smallint[], jsonb_build_object('objectid', objectid, 'lastseen', %(lastseen)s::text)
FROM jsonb_array_elements_text(%(objectids)s::jsonb) AS objectid
ORDER BY objectid COLLATE "C"
ON CONFLICT ((properties ->> 'objectid')) DO NOTHING
RETURNING properties ->> 'objectid', id
"""

RESOLVE_NAMES = """
SELECT properties ->> 'name', properties ->> 'objectid', kind_ids::text, id
FROM node
WHERE properties ->> 'name' = ANY(ARRAY(SELECT jsonb_array_elements_text(%(names)s::jsonb)))
"""

# Looked up by the unique object id index rather than joined in the upserts: inside a long ingest
# transaction the planner's row counts for `node` are stale (autovacuum cannot count our uncommitted
# rows and may even record the table as empty), and a join planned on "empty" becomes a nested loop
# over the whole table for every batch. A lookup by a unique index has no worse plan to fall into.
NODE_STATE = """
SELECT properties ->> 'objectid', id, kind_ids::text
FROM node
WHERE properties ->> 'objectid' = ANY(ARRAY(SELECT jsonb_array_elements_text(%(objectids)s::jsonb)))
"""

# Of (node id, edge kind id) pairs, those that some stored edge of the kind enters (ENTERED) or leaves (LEFT):
# an edge can exist only if both its pairs are such. One index probe per pair.
_STORED_PAIRS = """
SELECT p.node_id, p.kind_id
FROM (SELECT (e ->> 0)::bigint AS node_id, (e ->> 1)::smallint AS kind_id
      FROM jsonb_array_elements(%(pairs)s::jsonb) AS e) AS p
WHERE EXISTS (SELECT FROM edge WHERE edge.{side} = p.node_id AND edge.kind_id = p.kind_id)
"""
ENTERED = _STORED_PAIRS.format(side="end_id")
LEFT = _STORED_PAIRS.format(side="start_id")
# Of (start, kind, end) edges, the positions (from 1) of those stored: one probe of the unique index per edge.
STORED_EDGES = """
SELECT e.at
FROM jsonb_array_elements(%(edges)s::jsonb) WITH ORDINALITY AS e (edge, at)
WHERE EXISTS (SELECT FROM edge WHERE edge.start_id = (e.edge ->> 0)::bigint AND edge.kind_id = (e.edge ->> 1)::smallint
              AND edge.end_id = (e.edge ->> 2)::bigint)
"""

# A row that would not change is skipped: re-ingesting within one `seen_at` writes nothing. The stored
# row is compared first, by a probe of the key per staged row (a subquery the planner cannot turn into a
# join over the whole table): `ON CONFLICT` would lock each conflicting row before its WHERE found nothing
# to do, and a row lock writes the row's page and the WAL (an OU file restating its children's
# containment: 150k such edges at 100k objects).
UPSERT_EDGES = """
INSERT INTO edge AS edge (start_id, end_id, kind_id, properties)
SELECT s.start_id, s.end_id, s.kind_id, s.properties::jsonb
FROM hg_stage_edge s
WHERE (SELECT stored.properties <> stored.properties || s.properties::jsonb
       FROM edge stored
       WHERE stored.start_id = s.start_id AND stored.kind_id = s.kind_id AND stored.end_id = s.end_id
      ) IS NOT FALSE
ORDER BY s.start_id, s.kind_id, s.end_id
ON CONFLICT (start_id, kind_id, end_id) DO UPDATE
SET properties = edge.properties || EXCLUDED.properties
WHERE edge.properties <> edge.properties || EXCLUDED.properties
"""
# The ids of the staged edges after the upsert (the upsert returns only rows it changed).
STAGED_EDGE_IDS = """
SELECT s.start_id, s.kind_id, s.end_id, e.id
FROM hg_stage_edge s
JOIN edge e ON e.start_id = s.start_id AND e.kind_id = s.kind_id AND e.end_id = s.end_id
"""

DELETE_NODES = """
DELETE FROM node
WHERE properties ->> 'objectid' = ANY(ARRAY(SELECT jsonb_array_elements_text(%(objectids)s::jsonb)))
"""

# A file's source kinds, as the reference registers them at ingest: a kind cleared before (inactive) is active again.
REGISTER_SOURCE_KINDS = """
INSERT INTO source_kinds (name, active) SELECT unnest(%s::text[]), true
ON CONFLICT (name) DO UPDATE SET active = true WHERE NOT source_kinds.active
"""
