"""The scheduler's SQL, over the datapipe's psycopg connection; callers decide the transactions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from houndgraph.models.collection import SCOPE_FLAGS
from houndgraph.models.ingest_job import JobStatus

# pg_try_advisory_lock key of the collection scheduler ("hgsched").
SCHEDULER_LOCK_ID = 0x6867736368656400
# The node kind each counted result column stands for.
COUNTED_KINDS = {"user": "User", "group": "Group", "computer": "Computer", "gpo": "GPO", "ou": "OU",
                 "container": "Container", "aiaca": "AIACA", "rootca": "RootCA", "enterpriseca": "EnterpriseCA",
                 "ntauthstore": "NTAuthStore", "certtemplate": "CertTemplate"}

@dataclass(frozen=True, slots=True)
class DueEvent:
    id: int
    client_id: Any
    rrule: str
    due_at: datetime
    domain_controller: str | None
    scope: dict[str, Any]

@dataclass(frozen=True, slots=True)
class FollowedJob:
    id: int
    start_time: datetime | None
    status: int
    upload_status: int
    upload_message: str

def try_lock(conn: psycopg.Connection) -> bool:
    row = conn.execute("SELECT pg_try_advisory_lock(%s)", (SCHEDULER_LOCK_ID,)).fetchone()
    return bool(row and row[0])

def unlock(conn: psycopg.Connection) -> None:
    conn.execute("SELECT pg_advisory_unlock(%s)", (SCHEDULER_LOCK_ID,))

def due_events(conn: psycopg.Connection) -> list[DueEvent]:
    """Events due now, locked until the transaction ends (a concurrent scheduler skips them)."""
    rows = conn.execute(
        f"SELECT e.id, e.client_id, e.rrule, e.next_scheduled_at, c.domain_controller, "
        f"{', '.join(f'e.{flag}' for flag in SCOPE_FLAGS)}, e.ous, e.domains "
        "FROM client_events e JOIN clients c ON c.id = e.client_id "
        "WHERE e.deleted_at IS NULL AND c.deleted_at IS NULL AND e.next_scheduled_at <= now() "
        "ORDER BY e.next_scheduled_at FOR UPDATE OF e SKIP LOCKED").fetchall()
    return [DueEvent(row[0], row[1], row[2], row[3], row[4],
                     dict(zip((*SCOPE_FLAGS, "ous", "domains"), row[5:], strict=True))) for row in rows]

def add_scheduled_job(conn: psycopg.Connection, event: DueEvent) -> bool:
    """The event's job for its due occurrence; False when that occurrence already has one."""
    columns = ", ".join(SCOPE_FLAGS)
    values = ", ".join(f"%({flag})s" for flag in SCOPE_FLAGS)
    row = conn.execute(
        f"INSERT INTO client_jobs (client_id, event_id, execution_time, status, domain_controller, {columns}, "
        f"ous, domains) VALUES (%(client_id)s, %(event_id)s, %(due_at)s, %(ready)s, %(dc)s, {values}, "
        "%(ous)s, %(domains)s) ON CONFLICT ON CONSTRAINT uq_client_jobs_event_occurrence DO NOTHING RETURNING id",
        {**event.scope, "ous": Jsonb(event.scope["ous"]), "domains": Jsonb(event.scope["domains"]),
         "client_id": event.client_id, "event_id": event.id, "due_at": event.due_at, "ready": JobStatus.READY,
         "dc": event.domain_controller}).fetchone()
    return row is not None

def set_next_run(conn: psycopg.Connection, event_id: int, next_run: datetime | None) -> None:
    conn.execute("UPDATE client_events SET next_scheduled_at = %s, updated_at = now() WHERE id = %s",
                 (next_run, event_id))

def time_out_unstarted(conn: psycopg.Connection, timeout_seconds: float, message: str) -> int:
    rows = conn.execute(
        "UPDATE client_jobs SET status = %(timed_out)s, status_message = %(message)s, end_time = now(), "
        "updated_at = now() WHERE status = %(ready)s AND deleted_at IS NULL "
        "AND execution_time < now() - make_interval(secs => %(timeout)s) RETURNING id",
        {"timed_out": JobStatus.TIMED_OUT, "ready": JobStatus.READY, "timeout": timeout_seconds,
         "message": message}).fetchall()
    return len(rows)

def time_out_unfinished(conn: psycopg.Connection, timeout_seconds: float, message: str) -> int:
    """Running jobs without an upload or an end for the timeout: they and their upload job time out."""
    rows = conn.execute(
        "UPDATE client_jobs j SET status = %(timed_out)s, status_message = %(message)s, end_time = now(), "
        "updated_at = now() FROM ingest_jobs i WHERE i.id = j.ingest_job_id AND j.status = %(running)s "
        "AND greatest(j.start_time, i.last_ingest) < now() - make_interval(secs => %(timeout)s) "
        "RETURNING j.id, j.ingest_job_id",
        {"timed_out": JobStatus.TIMED_OUT, "running": JobStatus.RUNNING, "timeout": timeout_seconds,
         "message": message}).fetchall()
    if rows:
        conn.execute("UPDATE clients SET current_job_id = NULL WHERE current_job_id = ANY(%s)",
                     ([row[0] for row in rows],))
        conn.execute(
            "UPDATE ingest_jobs SET status = %s, status_message = %s, end_time = now(), updated_at = now() "
            "WHERE id = ANY(%s) AND status = %s",
            (JobStatus.TIMED_OUT, message, [row[1] for row in rows], JobStatus.RUNNING))
    return len(rows)

def jobs_behind_uploads(conn: psycopg.Connection) -> list[FollowedJob]:
    """Ended jobs whose upload job moved on (ingesting → analyzing → a final status) since last looked at."""
    rows = conn.execute(
        "SELECT j.id, j.start_time, j.status, i.status, i.status_message FROM client_jobs j "
        "JOIN ingest_jobs i ON i.id = j.ingest_job_id WHERE j.status = ANY(%s) AND i.status <> j.status",
        ([JobStatus.INGESTING, JobStatus.ANALYZING],)).fetchall()
    return [FollowedJob(*row) for row in rows]

def set_status(conn: psycopg.Connection, job_id: int, status: int, message: str | None = None) -> None:
    conn.execute(
        "UPDATE client_jobs SET status = %s, status_message = coalesce(%s, status_message), updated_at = now() "
        "WHERE id = %s", (status, message, job_id))

def record_domain_results(conn: psycopg.Connection, job_id: int, since: datetime, success: bool,
                          message: str) -> None:
    """Per domain, the objects of each counted kind written since the job started (their `lastseen`,
    which the store writes as RFC 3339 UTC text, so text order is time order at this precision)."""
    counts = ", ".join(
        f"count(*) FILTER (WHERE n.kind_ids && ARRAY(SELECT id FROM kind WHERE name = '{kind}')::smallint[])"
        for kind in COUNTED_KINDS.values())
    columns = ", ".join(f"{name}_count" for name in COUNTED_KINDS)
    conn.execute(
        f"INSERT INTO domain_collection_results (job_id, domain_name, success, message, {columns}) "
        f"SELECT %(job)s, upper(n.properties->>'domain'), %(success)s, %(message)s, {counts} FROM node n "
        "WHERE n.properties->>'domain' IS NOT NULL AND n.properties->>'lastseen' >= %(since)s "
        "GROUP BY upper(n.properties->>'domain') ORDER BY 2",
        {"job": job_id, "success": success, "message": message,
         "since": since.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")})
