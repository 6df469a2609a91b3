"""How much of the environment the collection saw: session and local-group completeness (fractions 0..1).

Reference `packages/go/analysis/ad/queries.go`, in our words:
* Session completeness: enabled Users with a numeric `lastlogontimestamp`, keeping those within 14 days
  of the newest such timestamp (the active ones); the share of them that are the end of at least one
  HasSession edge. 0 when there is nobody to count.
* Local-group completeness: enabled Computers whose `operatingsystem` contains WINDOWS (any case), with
  a numeric `lastlogontimestamp`, within 14 days of the newest one; the share of them that are the end
  of at least one AdminTo, CanRDP, CanPSRemote, ExecuteDCOM or CanBackup edge.
Both are also given per domain (`domainsid`, the newest timestamp taken within the domain), as the
data-quality snapshot needs.

The SQL is written once here, in psycopg's parameter style, and run both by analysis (psycopg) and by
the completeness endpoint (SQLAlchemy's `exec_driver_sql`, which hands it to psycopg unchanged).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import psycopg

from houndgraph.graph.kinds import ADEdge, ADNode

ACTIVE_WINDOW_SECONDS = 14 * 24 * 3600
LOCAL_GROUP_EDGES = [ADEdge.AdminTo, ADEdge.CanRDP, ADEdge.CanPSRemote, ADEdge.ExecuteDCOM, ADEdge.CanBackup]

# One pass gives the whole graph's figure (the first row, domain NULL) and each listed domain's (a row per
# domain with candidates): the candidates and their edges are read once however many domains there are. Kinds come
# as ids from the kind catalogue, not looked up in the statement: the planner then knows how many candidates there
# are, and each candidate's edges are one index look-up rather than one joined with a scan of the kinds (3.3 -> 2.4 s
# for the sessions at a million objects).
_COMPLETENESS = """
WITH candidates AS MATERIALIZED (
    SELECT n.id, n.properties->>'domainsid' AS sid, (n.properties->>'lastlogontimestamp')::double precision AS seen
    FROM node n
    WHERE n.kind_ids @> ARRAY[%(kind)s]::smallint[]
      AND n.properties->'enabled' = 'true'::jsonb
      AND jsonb_typeof(n.properties->'lastlogontimestamp') = 'number'
      AND (%(os)s::text IS NULL OR upper(n.properties->>'operatingsystem') LIKE %(os)s)
), newest_in_domain AS (
    SELECT sid, max(seen) AS seen FROM candidates WHERE sid = ANY(%(sids)s::text[]) GROUP BY sid
), active AS (
    SELECT c.id, c.sid, c.seen >= (SELECT max(seen) FROM candidates) - %(window)s AS in_graph,
           coalesce(c.seen >= d.seen - %(window)s, false) AS in_domain
    FROM candidates c LEFT JOIN newest_in_domain d ON d.sid = c.sid
), counted AS MATERIALIZED (
    SELECT a.sid, a.in_graph, a.in_domain, EXISTS (
               SELECT 1 FROM edge e
               WHERE e.end_id = a.id AND e.kind_id = ANY(%(edges)s::smallint[])
           ) AS covered
    FROM active a WHERE a.in_graph OR a.in_domain
)
SELECT NULL::text, count(*) FILTER (WHERE in_graph AND covered), count(*) FILTER (WHERE in_graph) FROM counted
UNION ALL
SELECT sid, count(*) FILTER (WHERE covered), count(*) FROM counted WHERE in_domain GROUP BY sid
ORDER BY 1 NULLS FIRST
"""


# A kind's id, None when no node or edge has used it (it then matches nothing): `Context.kind_id` in analysis, the
# request's `kind_map` elsewhere.
KindId = Callable[[str], int | None]


def session_query(kind_id: KindId, domain_sids: list[str] | None = None) -> tuple[str, dict[str, Any]]:
    return _COMPLETENESS, {"kind": _id(kind_id, ADNode.User), "os": None, "sids": domain_sids or [],
                           "window": ACTIVE_WINDOW_SECONDS, "edges": _ids(kind_id, [ADEdge.HasSession])}


def local_group_query(kind_id: KindId, domain_sids: list[str] | None = None) -> tuple[str, dict[str, Any]]:
    return _COMPLETENESS, {"kind": _id(kind_id, ADNode.Computer), "os": "%WINDOWS%", "sids": domain_sids or [],
                           "window": ACTIVE_WINDOW_SECONDS, "edges": _ids(kind_id, LOCAL_GROUP_EDGES)}


def _id(kind_id: KindId, name: str) -> int:
    found = kind_id(name)
    return -1 if found is None else found


def _ids(kind_id: KindId, names: list[ADEdge]) -> list[int]:
    return [found for name in names if (found := kind_id(name)) is not None]


def fraction(row: tuple[Any, ...] | None) -> float:
    """The figure of a row `(..., covered, counted)`; the first row of a query above is the whole graph's."""
    if not row or not row[-1]:
        return 0.0
    return float(row[-2] / row[-1])


@dataclass(frozen=True, slots=True)
class Completeness:
    graph: float
    domains: dict[str, float]  # domain SID -> its figure; 0 for a domain with nothing to count

    def of(self, domain_sid: str) -> float:
        return self.domains.get(domain_sid, 0.0)


def session_completeness(conn: psycopg.Connection, kind_id: KindId,
                         domain_sids: list[str] | None = None) -> Completeness:
    return _completeness(conn, *session_query(kind_id, domain_sids))


def local_group_completeness(conn: psycopg.Connection, kind_id: KindId,
                             domain_sids: list[str] | None = None) -> Completeness:
    return _completeness(conn, *local_group_query(kind_id, domain_sids))


def _completeness(conn: psycopg.Connection, query: str, params: dict[str, Any]) -> Completeness:
    rows = conn.execute(query, params).fetchall()
    return Completeness(graph=fraction(rows[0]), domains={row[0]: fraction(row) for row in rows[1:]})
