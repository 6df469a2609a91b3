"""How much of the environment the collection saw: session and local-group completeness (fractions 0..1).

Reference `packages/go/analysis/ad/queries.go`, in our words:
* Session completeness: enabled Users with a numeric `lastlogontimestamp`, keeping those within 14 days
  of the newest such timestamp (the active ones); the share of them that are the end of at least one
  HasSession edge. 0 when there is nobody to count.
* Local-group completeness: enabled Computers whose `operatingsystem` contains WINDOWS (any case), with
  a numeric `lastlogontimestamp`, within 14 days of the newest one; the share of them that are the end
  of at least one AdminTo, CanRDP, CanPSRemote, ExecuteDCOM or CanBackup edge.
Both can be restricted to one domain (`domainsid`), as the data-quality snapshot does.

The SQL is written once here, in psycopg's parameter style, and run both by analysis (psycopg) and by
the completeness endpoint (SQLAlchemy's `exec_driver_sql`, which hands it to psycopg unchanged).
"""

from __future__ import annotations

from typing import Any

import psycopg

from houndgraph.graph.kinds import ADEdge, ADNode

ACTIVE_WINDOW_SECONDS = 14 * 24 * 3600
LOCAL_GROUP_EDGES = [ADEdge.AdminTo, ADEdge.CanRDP, ADEdge.CanPSRemote, ADEdge.ExecuteDCOM, ADEdge.CanBackup]

_COMPLETENESS = """
WITH candidates AS (
    SELECT n.id, (n.properties->>'lastlogontimestamp')::double precision AS seen
    FROM node n
    WHERE n.kind_ids @> ARRAY[(SELECT id FROM kind WHERE name = %(kind)s)]::smallint[]
      AND n.properties->'enabled' = 'true'::jsonb
      AND jsonb_typeof(n.properties->'lastlogontimestamp') = 'number'
      AND (%(os)s::text IS NULL OR upper(n.properties->>'operatingsystem') LIKE %(os)s)
      AND (%(sid)s::text IS NULL OR n.properties->>'domainsid' = %(sid)s)
), active AS (
    SELECT id FROM candidates WHERE seen >= (SELECT max(seen) FROM candidates) - %(window)s
)
SELECT count(*) FILTER (WHERE EXISTS (
           SELECT 1 FROM edge e
           WHERE e.end_id = a.id AND e.kind_id IN (SELECT id FROM kind WHERE name = ANY(%(edges)s::text[]))
       )),
       count(*)
FROM active a
"""


def session_query(domain_sid: str | None = None) -> tuple[str, dict[str, Any]]:
    return _COMPLETENESS, {"kind": ADNode.User.value, "os": None, "sid": domain_sid,
                           "window": ACTIVE_WINDOW_SECONDS, "edges": [ADEdge.HasSession.value]}


def local_group_query(domain_sid: str | None = None) -> tuple[str, dict[str, Any]]:
    return _COMPLETENESS, {"kind": ADNode.Computer.value, "os": "%WINDOWS%", "sid": domain_sid,
                           "window": ACTIVE_WINDOW_SECONDS, "edges": [kind.value for kind in LOCAL_GROUP_EDGES]}


def fraction(row: tuple[int, int] | None) -> float:
    if not row or not row[1]:
        return 0.0
    return row[0] / row[1]


def session_completeness(conn: psycopg.Connection, domain_sid: str | None = None) -> float:
    query, params = session_query(domain_sid)
    return fraction(conn.execute(query, params).fetchone())


def local_group_completeness(conn: psycopg.Connection, domain_sid: str | None = None) -> float:
    query, params = local_group_query(domain_sid)
    return fraction(conn.execute(query, params).fetchone())
