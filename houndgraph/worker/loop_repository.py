"""The datapipe's SQL, over a psycopg connection it owns: the status row, ingest tasks and jobs.

Callers decide the transactions (an ingest task's graph writes and its status change commit together);
functions here never commit. The graph deletions of clear-database are in `clear_database_repository`.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

import psycopg
from psycopg.types.json import Jsonb

from houndgraph.datapipe.request_repository import REQUEST_ANALYSIS
from houndgraph.models.ingest_job import JobStatus
from houndgraph.models.ingest_task import TaskState

# pg_try_advisory_lock key of the datapipe: one process in a cluster runs a tick at a time ("hgpipe").
DATAPIPE_LOCK_ID = 0x6867706970650000


class PipeStatus(StrEnum):
    """reference/behaviour.md §10."""

    IDLE = "idle"
    INGESTING = "ingesting"
    ANALYZING = "analyzing"
    PURGING = "purging"
    PRUNING = "pruning"
    STARTING = "starting"


@dataclass(frozen=True, slots=True)
class TaskRow:
    id: int
    job_id: int
    file_name: str
    # Relative to the host's uploads folder for an upload (`upload_id`), absolute for a file read in place.
    stored_path: str
    member_name: str | None
    owns_file: bool
    upload_id: uuid.UUID | None
    attempts: int
    warnings: list[str]
    # The `lastseen` the task writes: its job's start, one moment for every file of a collection, so an edge
    # two files describe (an OU's ChildObjects and its child's ContainedBy) or a node several files name is
    # left as it is by the second file rather than rewritten with a later time.
    seen_at: datetime


@dataclass(frozen=True, slots=True)
class JobCounts:
    id: int
    total_files: int
    completed_files: int
    failed_files: int


# --- the lock and the status row ---------------------------------------------------------------


def try_lock(conn: psycopg.Connection) -> bool:
    row = conn.execute("SELECT pg_try_advisory_lock(%s)", (DATAPIPE_LOCK_ID,)).fetchone()
    return bool(row and row[0])


def unlock(conn: psycopg.Connection) -> None:
    conn.execute("SELECT pg_advisory_unlock(%s)", (DATAPIPE_LOCK_ID,))


def set_status(conn: psycopg.Connection, status: PipeStatus) -> None:
    conn.execute("UPDATE datapipe_status SET status = %s, updated_at = now() WHERE id = 1", (str(status),))


def request_analysis(conn: psycopg.Connection) -> None:
    conn.execute(REQUEST_ANALYSIS)


def analysis_wanted(conn: psycopg.Connection) -> bool:
    """Requested, or owed to jobs left in `analyzing` (a crash during analysis clears the request
    but not the jobs' state, so the run is not lost)."""
    row = conn.execute(
        "SELECT analysis_requested OR EXISTS (SELECT 1 FROM ingest_jobs WHERE status = %s) "
        "FROM datapipe_status WHERE id = 1",
        (JobStatus.ANALYZING,),
    ).fetchone()
    return bool(row and row[0])


def start_analysis(conn: psycopg.Connection) -> None:
    # The request is taken now: one made while analysis runs sets it again and earns another run.
    conn.execute(
        "UPDATE datapipe_status SET status = %s, updated_at = now(), last_analysis_run_at = now(), "
        "analysis_requested = false WHERE id = 1",
        (str(PipeStatus.ANALYZING),),
    )


def record_complete_analysis(conn: psycopg.Connection) -> None:
    conn.execute("UPDATE datapipe_status SET last_complete_analysis_at = now() WHERE id = 1")


# --- jobs --------------------------------------------------------------------------------------


def time_out_idle_jobs(conn: psycopg.Connection, idle_seconds: float) -> int:
    """Running jobs with no upload for `idle_seconds` are timed out; files they did send are still
    ingested, and analysed."""
    rows = conn.execute(
        "UPDATE ingest_jobs SET status = %(timed_out)s, end_time = now(), updated_at = now(), "
        "status_message = %(message)s "
        "WHERE status = %(running)s AND last_ingest < now() - make_interval(secs => %(idle)s) "
        "RETURNING total_files",
        {"timed_out": JobStatus.TIMED_OUT, "running": JobStatus.RUNNING, "idle": idle_seconds,
         "message": f"no file was uploaded for {idle_seconds:g} seconds: the job timed out"},
    ).fetchall()
    if any(total for (total,) in rows):
        request_analysis(conn)
    return len(rows)


def drained_ingesting_jobs(conn: psycopg.Connection) -> list[JobCounts]:
    """Ended jobs whose every file has been read (or has failed)."""
    rows = conn.execute(
        "SELECT id, total_files, completed_files, failed_files FROM ingest_jobs AS job "
        "WHERE status = %s AND NOT EXISTS (SELECT 1 FROM ingest_tasks AS task "
        "WHERE task.job_id = job.id AND task.state = ANY(%s)) ORDER BY id",
        (JobStatus.INGESTING, [str(TaskState.PENDING), str(TaskState.RUNNING)]),
    ).fetchall()
    return [JobCounts(*row) for row in rows]


def set_job_status(conn: psycopg.Connection, job_id: int, status: JobStatus, message: str = "",
                   *, ended: bool) -> None:
    conn.execute(
        "UPDATE ingest_jobs SET status = %s, status_message = %s, updated_at = now(), "
        "end_time = CASE WHEN %s THEN now() ELSE end_time END WHERE id = %s",
        (status, message, ended, job_id),
    )


def analyzing_jobs(conn: psycopg.Connection) -> list[JobCounts]:
    rows = conn.execute(
        "SELECT id, total_files, completed_files, failed_files FROM ingest_jobs WHERE status = %s ORDER BY id",
        (JobStatus.ANALYZING,),
    ).fetchall()
    return [JobCounts(*row) for row in rows]


@dataclass(frozen=True, slots=True)
class JobProgress:
    status: int
    status_message: str
    total_files: int
    completed_files: int
    failed_files: int
    nodes_written: int
    edges_written: int


def job_progress(conn: psycopg.Connection, job_id: int) -> JobProgress | None:
    row = conn.execute(
        "SELECT status, status_message, total_files, completed_files, failed_files, nodes_written, edges_written "
        "FROM ingest_jobs WHERE id = %s",
        (job_id,),
    ).fetchone()
    return JobProgress(*row) if row else None


def create_local_job(conn: psycopg.Connection) -> int:
    """A job for files read in place by `houndgraph ingest`: no user, and no uploads to wait for."""
    row = conn.execute(
        "INSERT INTO ingest_jobs (user_id, user_email_address, status, status_message, start_time, last_ingest, "
        "total_files, completed_files, failed_files, nodes_written, edges_written) "
        "VALUES (NULL, NULL, %s, '', now(), now(), 0, 0, 0, 0, 0) RETURNING id",
        (JobStatus.RUNNING,),
    ).fetchone()
    assert row is not None
    return int(row[0])


def add_local_task(conn: psycopg.Connection, job_id: int, file_name: str, parent_file_name: str | None,
                   path: str, member_name: str | None, *, errors: list[str], warnings: list[str]) -> None:
    """A task reading `path` in place (never deleted); one with errors is failed from the start."""
    state = TaskState.FAILED if errors else TaskState.PENDING
    conn.execute(
        "INSERT INTO ingest_tasks (job_id, file_name, parent_file_name, stored_path, member_name, owns_file, state, "
        "errors, warnings, attempts, nodes_written, edges_written) "
        "VALUES (%s, %s, %s, %s, %s, false, %s, %s, %s, 0, 0, 0)",
        (job_id, file_name, parent_file_name, path, member_name, str(state), Jsonb(errors), Jsonb(warnings)),
    )
    conn.execute(
        "UPDATE ingest_jobs SET total_files = total_files + 1, failed_files = failed_files + %s, "
        "last_ingest = now(), updated_at = now() WHERE id = %s",
        (1 if errors else 0, job_id),
    )


@dataclass(frozen=True, slots=True)
class TaskSummary:
    file_name: str
    parent_file_name: str | None
    state: str
    nodes_written: int
    edges_written: int
    errors: list[str]
    warnings: list[str]


def job_tasks(conn: psycopg.Connection, job_id: int) -> list[TaskSummary]:
    rows = conn.execute(
        "SELECT file_name, parent_file_name, state, nodes_written, edges_written, errors, warnings "
        "FROM ingest_tasks WHERE job_id = %s ORDER BY id",
        (job_id,),
    ).fetchall()
    return [TaskSummary(*row) for row in rows]


# --- tasks -------------------------------------------------------------------------------------

_TASK_COLUMNS = "task.id, task.job_id, task.file_name, task.stored_path, task.member_name, task.owns_file, " \
                "task.upload_id, task.attempts, task.warnings, job.start_time"


# SharpHound's files by the last word of their names (`20260101000000_users.json`), in the order a job reads them:
# objects before the files that only name them, so that few edges meet a placeholder that a later record must
# rewrite (OUs and groups name every user and computer). Files of other names come first, in upload order.
# Measured on 100k objects through the upload API: 61.5 s in SharpHound's member order, 44.4 s in this one.
SHARPHOUND_READING_ORDER = ("users", "groups", "computers", "ous", "gpos", "containers", "domains")


@dataclass(frozen=True, slots=True)
class Taken:
    """The task the datapipe reads now (its attempt begun), and the one expected after it (to read ahead)."""

    task: TaskRow | None
    following: TaskRow | None


def take_task(conn: psycopg.Connection, done: Collection[int]) -> Taken:
    """Begin an attempt at the next task to read, and name the one after it, in one statement.

    Order: jobs in upload order, a job's SharpHound files in `SHARPHOUND_READING_ORDER`, other files by upload
    order; `done` are the tasks this tick already read (the one being finished among them: the statement sees
    the state it had when its transaction began). A task still `running` was interrupted by a crash: the
    datapipe runs one tick at a time cluster-wide, so no one else is reading it. No task is taken while a
    clear-database request waits: the purge step runs first, at the next tick.

    The attempt is counted (and `start_time` set) in the caller's transaction: at the start of an ingest step
    on its own, then in the transaction that ends the task before, so a crash while reading a file still counts
    against it and a task costs one commit."""
    rows = conn.execute(
        f"WITH queue AS (SELECT {_TASK_COLUMNS}, row_number() OVER (ORDER BY task.job_id, "
        "coalesce(array_position(%(order)s::text[], substring(lower(task.file_name) from '([a-z]+)\\.json$')), 0), "
        "task.id) AS position "
        "FROM ingest_tasks AS task JOIN ingest_jobs AS job ON job.id = task.job_id "
        "WHERE task.state = ANY(%(open)s) AND job.status <> %(canceled)s AND NOT task.id = ANY(%(done)s) "
        "AND NOT EXISTS (SELECT 1 FROM purge_requests) "
        "ORDER BY position LIMIT 2), "
        "taken AS (UPDATE ingest_tasks SET state = %(running)s, attempts = attempts + 1, "
        "start_time = clock_timestamp(), end_time = NULL, updated_at = now() "
        "WHERE id = (SELECT id FROM queue WHERE position = 1) RETURNING id, attempts) "
        "SELECT queue.id, queue.job_id, queue.file_name, queue.stored_path, queue.member_name, queue.owns_file, "
        "queue.upload_id, "
        "coalesce(taken.attempts, queue.attempts), queue.warnings, queue.start_time "
        "FROM queue LEFT JOIN taken ON taken.id = queue.id ORDER BY queue.position",
        {"order": list(SHARPHOUND_READING_ORDER), "open": [str(TaskState.PENDING), str(TaskState.RUNNING)],
         "canceled": JobStatus.CANCELED, "done": list(done), "running": str(TaskState.RUNNING)},
    ).fetchall()
    tasks = [TaskRow(*row) for row in rows]
    return Taken(tasks[0] if tasks else None, tasks[1] if len(tasks) > 1 else None)


def pending_documents(conn: psycopg.Connection) -> list[tuple[str, str | None, int | None]]:
    """(stored path, zip member or None, the document's size if known at upload) of every task still to read, of jobs
    not canceled."""
    rows = conn.execute(
        "SELECT task.stored_path, task.member_name, task.document_bytes FROM ingest_tasks AS task "
        "JOIN ingest_jobs AS job ON job.id = task.job_id WHERE task.state = ANY(%s) AND job.status <> %s",
        ([str(TaskState.PENDING), str(TaskState.RUNNING)], JobStatus.CANCELED),
    ).fetchall()
    return [(str(path), member, size) for path, member, size in rows]


def release_task(conn: psycopg.Connection, task_id: int) -> None:
    """A clean shutdown interrupted the task: it is not the file's fault, so the attempt is not counted."""
    conn.execute(
        "UPDATE ingest_tasks SET state = %s, attempts = greatest(attempts - 1, 0), start_time = NULL, "
        "updated_at = now() WHERE id = %s",
        (str(TaskState.PENDING), task_id),
    )


def complete_task(conn: psycopg.Connection, task: TaskRow, warnings: list[str], nodes: int, edges: int) -> bool:
    """The task's outcome and its job's counts, in one statement, in the task's own transaction; whether its stored
    file is still needed (the members of one archive share its file: it is deleted after the last of them). The
    task's `start_time` becomes its transaction's start: when the datapipe turned to it, the task before it
    committed (the take's time, set when its attempt began, falls before that commit); its `end_time` is now, its
    last statement before its commit. Both by the database's clock, as the job's times are."""
    return _finish(conn, task, TaskState.COMPLETE, [], warnings, nodes, edges)


def fail_task(conn: psycopg.Connection, task: TaskRow, errors: list[str], warnings: list[str]) -> bool:
    """As `complete_task`, for a file that could not be ingested: nothing of it is counted as written. Its
    transaction was rolled back, so its `start_time` stays the take's."""
    return _finish(conn, task, TaskState.FAILED, errors, warnings, 0, 0)


def _finish(conn: psycopg.Connection, task: TaskRow, state: TaskState, errors: list[str], warnings: list[str],
            nodes: int, edges: int) -> bool:
    failed = state == TaskState.FAILED
    row = conn.execute(
        "WITH finished AS (UPDATE ingest_tasks SET state = %(state)s, errors = %(errors)s, warnings = %(warnings)s, "
        "nodes_written = %(nodes)s, edges_written = %(edges)s, "
        "start_time = CASE WHEN %(failed)s = 1 THEN start_time ELSE transaction_timestamp() END, "
        "end_time = clock_timestamp(), updated_at = now() "
        "WHERE id = %(id)s), "
        "job AS (UPDATE ingest_jobs SET completed_files = completed_files + %(completed)s, "
        "failed_files = failed_files + %(failed)s, nodes_written = nodes_written + %(nodes)s, "
        "edges_written = edges_written + %(edges)s, updated_at = now() WHERE id = %(job)s), "
        # The upload is read: its rows go with the last of its tasks (the statement sees the tasks as they were
        # before it, this one still open, hence `id <>`).
        "read AS (DELETE FROM upload_chunks WHERE upload_id = %(upload)s AND NOT EXISTS (SELECT 1 FROM ingest_tasks "
        "WHERE upload_id = %(upload)s AND state = ANY(%(open)s) AND id <> %(id)s)) "
        "SELECT EXISTS (SELECT 1 FROM ingest_tasks WHERE stored_path = %(path)s AND state = ANY(%(open)s) "
        "AND id <> %(id)s)",
        {"state": str(state), "errors": Jsonb(errors), "warnings": Jsonb(warnings), "nodes": nodes, "edges": edges,
         "id": task.id, "completed": 0 if failed else 1, "failed": 1 if failed else 0, "job": task.job_id,
         "path": task.stored_path, "upload": task.upload_id, "open": [str(TaskState.PENDING), str(TaskState.RUNNING)]},
    ).fetchone()
    return bool(row and row[0])


def delete_unneeded_uploads(conn: psycopg.Connection) -> int:
    """Uploads no unfinished task reads any more (their tasks canceled or deleted). An upload still being sent is
    not seen: its rows commit with its tasks."""
    return conn.execute(
        "DELETE FROM upload_chunks AS chunk WHERE NOT EXISTS (SELECT 1 FROM ingest_tasks AS task "
        "WHERE task.upload_id = chunk.upload_id AND task.state = ANY(%s))",
        ([str(TaskState.PENDING), str(TaskState.RUNNING)],),
    ).rowcount


def vacuum_uploads(conn: psycopg.Connection) -> None:
    """Give the space of deleted uploads back to the disk: a vacuum truncates a table whose last pages hold only
    deleted rows, as the stored uploads' table (and its TOAST table) does once the uploads are read, where
    autovacuum would come a minute or more later. `conn` is in autocommit mode (a vacuum runs outside a
    transaction)."""
    conn.execute("VACUUM upload_chunks")


def upload_chunk(conn: psycopg.Connection, upload_id: uuid.UUID, seq: int) -> bytes | None:
    """One piece of a stored upload; None past its last."""
    row = conn.execute("SELECT data FROM upload_chunks WHERE upload_id = %s AND seq = %s", (upload_id, seq)).fetchone()
    return bytes(row[0]) if row else None


def upload_pieces(conn: psycopg.Connection, upload_id: uuid.UUID) -> Iterator[bytes]:
    """A stored upload's pieces in order, one query (and one piece in memory) at a time."""
    seq = 0
    while (piece := upload_chunk(conn, upload_id, seq)) is not None:
        yield piece
        seq += 1


def unfinished_stored_paths(conn: psycopg.Connection) -> set[str]:
    rows = conn.execute(
        "SELECT DISTINCT stored_path FROM ingest_tasks WHERE state = ANY(%s)",
        ([str(TaskState.PENDING), str(TaskState.RUNNING)],),
    ).fetchall()
    return {row[0] for row in rows}


# WAL written since the redo point of the last checkpoint, in bytes (`pg_control_checkpoint` is for superusers:
# the embedded server's own role).
_WAL_SINCE_CHECKPOINT = "SELECT pg_current_wal_lsn() - redo_lsn FROM pg_control_checkpoint()"


def checkpoint_after_bulk_work(conn: psycopg.Connection, min_bytes: int) -> bool:
    """Ask for a checkpoint when at least `min_bytes` of WAL were written since the last one began; whether it
    did. With `wal_recycle` off the segments before the new redo point are then removed, so the WAL of a large
    upload leaves the disk once its analysis has committed rather than when the next timed checkpoint comes."""
    row = conn.execute(_WAL_SINCE_CHECKPOINT).fetchone()
    if row is None or row[0] is None or int(row[0]) < min_bytes:
        return False
    conn.execute("CHECKPOINT")
    return True
