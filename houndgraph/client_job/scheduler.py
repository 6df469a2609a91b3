"""The collection scheduler: one step of the datapipe loop. Due events become jobs, jobs that never start
or never end time out, and ended jobs follow their upload job through ingest and analysis.

Single-flight across processes: the step holds an advisory lock of its own, due events are claimed with
`FOR UPDATE SKIP LOCKED`, and `(event_id, execution_time)` is unique, so an occurrence becomes one job
however many processes run it. Missed occurrences (the service was down) become one job, not a backlog.
"""

from __future__ import annotations

import logging
from contextlib import suppress
from datetime import UTC, datetime

import psycopg

from houndgraph.client_job import scheduler_repository as repo
from houndgraph.event.recurrence import RecurrenceError, next_occurrence
from houndgraph.models.ingest_job import JobStatus

log = logging.getLogger(__name__)

NOT_STARTED = "the client did not start the job within {seconds:g} seconds"
NOT_ENDED = "the client neither uploaded nor ended the job for {seconds:g} seconds"
SUCCESSFUL = (JobStatus.COMPLETE, JobStatus.PARTIALLY_COMPLETE)
IN_PROGRESS = (JobStatus.INGESTING, JobStatus.ANALYZING)


def run(conn: psycopg.Connection, job_timeout: float) -> bool:
    """One pass; False when another process is running the scheduler. `conn` is in autocommit mode."""
    if not repo.try_lock(conn):
        return False
    try:
        schedule_due_events(conn)
        with conn.transaction():
            repo.time_out_unstarted(conn, job_timeout, NOT_STARTED.format(seconds=job_timeout))
            repo.time_out_unfinished(conn, job_timeout, NOT_ENDED.format(seconds=job_timeout))
        follow_uploads(conn)
    finally:
        with suppress(psycopg.Error):
            repo.unlock(conn)
    return True


def schedule_due_events(conn: psycopg.Connection) -> int:
    made = 0
    with conn.transaction():
        now = datetime.now(UTC)
        for event in repo.due_events(conn):
            made += repo.add_scheduled_job(conn, event)
            try:
                next_run = next_occurrence(event.rrule, max(now, event.due_at))
            except RecurrenceError:
                log.exception("event %s has a rule the scheduler cannot follow; it is not scheduled again",
                              event.id)
                next_run = None
            repo.set_next_run(conn, event.id, next_run)
    return made


def follow_uploads(conn: psycopg.Connection) -> None:
    for job in repo.jobs_behind_uploads(conn):
        with conn.transaction():
            if job.upload_status in IN_PROGRESS:
                repo.set_status(conn, job.id, job.upload_status)
                continue
            repo.set_status(conn, job.id, job.upload_status, job.upload_message or None)
            if job.start_time is not None:
                repo.record_domain_results(conn, job.id, job.start_time, job.upload_status in SUCCESSFUL,
                                           job.upload_message)
