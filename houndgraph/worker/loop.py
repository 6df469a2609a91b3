"""The datapipe: one sequential loop that turns queued work into graph changes.

Each tick, in order: time out idle upload jobs → purge (clear-database requests) → ingest tasks →
analysis (when requested, or owed to jobs that finished ingesting) → job completion → the collection
scheduler (`client_job.scheduler`: events to jobs, timeouts, collection jobs following their uploads).
The ingest step takes no further file while a clear-database request waits, so the request is carried out at the
next tick, after the file being written, rather than after every queued file.
A tick runs under a PostgreSQL advisory lock, so with several API processes (or `houndgraph ingest` beside
a service) exactly one of them works at a time; the others skip the tick. The lock is a session lock on the
datapipe's own connection, so a process that dies releases it with its connection.

The same `Datapipe.tick` serves the background thread of the service and the CLI.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

import psycopg

from houndgraph.analysis import run_analysis
from houndgraph.client_job import scheduler
from houndgraph.config import service as config_service
from houndgraph.db import Database
from houndgraph.extension import service as extension_service
from houndgraph.feature_flag import service as feature_flag_service
from houndgraph.feature_flag.flag_keys import FeatureFlagKey
from houndgraph.graph.store import WriteStats, bulk
from houndgraph.ingest.errors import IngestError
from houndgraph.models.ingest_job import JobStatus
from houndgraph.models.ingest_task import TaskState
from houndgraph.observability import ANALYSIS_SECONDS, INGEST_SECONDS
from houndgraph.settings import Settings
from houndgraph.worker import clear_database, files, read_process
from houndgraph.worker import clear_database_repository as purge_repo
from houndgraph.worker import loop_repository as repo
from houndgraph.worker.loop_repository import PipeStatus, TaskRow
from houndgraph.worker.task_writer import BATCH_SIZE, Stopped, TaskProgress, write_task

# Logged as the datapipe, the name operators know from the logs' `logger` field, wherever the module lives.
log = logging.getLogger("houndgraph.datapipe.loop")

AnalysisHook = Callable[[psycopg.Connection], None]
# A file whose reading was cut short this many times (the process died each time) is given up on.
MAX_ATTEMPTS = 3
# After an analysis, the embedded server checkpoints when at least this much WAL was written since its last
# checkpoint: the WAL of a large upload (about 7 GB per million objects) leaves the disk, while the small jobs
# of every day cost no checkpoint of their own.
CHECKPOINT_AFTER_WAL_BYTES = 256 << 20
# What the triggers of `datapipe_wake.sql` notify; how often a waiting datapipe looks whether it was stopped.
WAKE_CHANNEL = "houndgraph_datapipe"
STOP_CHECK_SECONDS = 0.1
GAVE_UP = "ingest of this file was interrupted {attempts} times (the service stopped while reading it): given up"


def no_analysis(conn: psycopg.Connection) -> None:
    """An analysis hook that derives nothing (tests of the loop itself): the status moves, nothing else."""
    del conn


def analyse(conn: psycopg.Connection) -> None:
    """The analysis hook: every post-processing rule, privilege zone tags and the data-quality snapshot."""
    run_analysis(conn, citrix_rdp_support=config_service.citrix_rdp_support(conn),
                 tag_parent_objects=feature_flag_service.enabled_on(conn, FeatureFlagKey.AUTO_TAG_T0_PARENT_OBJECTS),
                 extension_traversable_edges=extension_service.traversable_edge_kinds_on(conn),
                 after_rules=build_inbound_edge_index)


def build_inbound_edge_index(conn: psycopg.Connection) -> None:
    """The inbound edge index a bulk job deferred, built once the rules have added their edges (`graph.store.bulk`)."""
    bulk.rebuild(conn, bulk.AFTER_RULES)


class Observer:
    """Progress hooks, called on the datapipe's thread; the service uses these silent defaults."""

    def batch_written(self, progress: TaskProgress) -> None:
        """A batch of a task was written (not yet committed)."""

    def task_finished(self, task: TaskRow, state: TaskState, stats: WriteStats, errors: list[str]) -> None:
        """A task's outcome was committed."""


class Datapipe:
    def __init__(self, settings: Settings, database: Database, *, analysis: AnalysisHook = analyse,
                 batch_size: int = BATCH_SIZE, connect: Callable[[], psycopg.Connection] | None = None,
                 bulk_min_bytes: int = bulk.MIN_BYTES) -> None:
        self._settings = settings
        self._bulk_min_bytes = bulk_min_bytes
        # Autocommit: the steps open their own transactions; the session lock outlives them.
        self._connect = connect or (lambda: database.connect_raw(autocommit=True))
        self._analysis = analysis
        self._database = database
        self._batch_size = batch_size
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._conn: psycopg.Connection | None = None
        self._started = False

    # --- the service's background thread -----------------------------------------------------

    def start(self) -> Datapipe:
        self._thread = threading.Thread(target=self._run, name="houndgraph-datapipe", daemon=True)
        self._thread.start()
        return self

    def alive(self) -> bool:
        """Whether the background loop runs (it may be waiting for another process's lock)."""
        return self._thread is not None and self._thread.is_alive()

    def stop(self, timeout: float = 60.0) -> None:
        """Ask the loop to stop (a task being read is put back, unread) and wait for it."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                log.warning("the datapipe did not stop within %s seconds", timeout)
        self._thread = None
        read_process.close_idle()

    def close(self) -> None:
        """Release the connection of a datapipe driven by `tick` calls (the CLI); the thread closes its own."""
        self._drop_connection()
        read_process.close_idle()

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                self.tick()
            except Exception:
                log.exception("datapipe tick failed; retrying at the next tick")
                self._drop_connection()
            self._wait_for_work()
        self._drop_connection()

    def _wait_for_work(self) -> None:
        """Until the next tick is due, or sooner: a write that gives the datapipe work (a file to read, an analysis
        or clear-database request, a job or schedule that changed) notifies it from any process at its commit
        (`datapipe_wake.sql`); one that arrived during the tick (psycopg keeps those) makes the next start at once."""
        deadline = time.monotonic() + self._settings.datapipe_interval
        while not self._stopping.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            conn = self._conn
            if conn is None or conn.closed:
                self._stopping.wait(left)
                return
            try:
                # In slices, so that a stop is seen within one.
                for _ in conn.notifies(timeout=min(left, STOP_CHECK_SECONDS), stop_after=1):
                    return
            except psycopg.Error:
                self._drop_connection()

    # --- one tick ------------------------------------------------------------------------------

    def tick(self, observer: Observer | None = None) -> bool:
        """Run every step that has work. False when another process holds the datapipe lock."""
        observer = observer or Observer()
        conn = self._connection()
        if not repo.try_lock(conn):
            return False
        try:
            if not self._started:
                self._start_step(conn)
                self._started = True
            repo.time_out_idle_jobs(conn, self._settings.upload_idle_timeout)
            self._purge_step(conn)
            self._ingest_step(conn, observer)
            self._analysis_step(conn)
            # What the analysis did not build (it failed, or another hook ran): deferred no longer than the tick.
            self._rebuild_indexes(conn)
            self._schedule_step(conn)
            read_process.close_idle(older_than=read_process.IDLE_SECONDS)
        except Stopped:
            log.info("datapipe stopped during ingest; the file will be read again at the next start")
        finally:
            with suppress(psycopg.Error):
                repo.unlock(conn)
        return True

    def _connection(self) -> psycopg.Connection:
        if self._conn is None or self._conn.closed:
            self._conn = self._connect()
            self._conn.execute(f"LISTEN {WAKE_CHANNEL}")
        return self._conn

    def _drop_connection(self) -> None:
        if self._conn is not None:
            with suppress(psycopg.Error):
                self._conn.close()
        self._conn = None

    @contextmanager
    def _status(self, conn: psycopg.Connection, status: PipeStatus) -> Iterator[None]:
        repo.set_status(conn, status)
        try:
            yield
        finally:
            with suppress(psycopg.Error):
                repo.set_status(conn, PipeStatus.IDLE)

    # --- steps ---------------------------------------------------------------------------------

    def _start_step(self, conn: psycopg.Connection) -> None:
        """Once per process: uploads left behind by a crash (files never committed as tasks, or whose
        tasks are finished) are removed. Interrupted tasks need nothing: they are read again."""
        with self._status(conn, PipeStatus.STARTING):
            uploads = self._settings.uploads_dir
            files.sweep_uploads(uploads, {str(files.local_path(uploads, path))
                                          for path in repo.unfinished_stored_paths(conn)})
            repo.delete_unneeded_uploads(conn)
            # Indexes a job deferred before the process stopped or crashed (`graph.store.bulk`).
            self._rebuild_indexes(conn)

    def _schedule_step(self, conn: psycopg.Connection) -> None:
        """Collection: due events become jobs, stalled jobs time out, ended jobs follow their uploads
        (after the analysis step, so a job finishes in the tick its analysis did)."""
        scheduler.run(conn, self._settings.client_job_timeout)

    def _purge_step(self, conn: psycopg.Connection) -> None:
        request = purge_repo.next_request(conn)
        if request is None:
            return
        with self._status(conn, PipeStatus.PURGING):
            while request is not None:
                files.discard_all(self._settings.uploads_dir, clear_database.carry_out(conn, request))
                request = purge_repo.next_request(conn)

    def _ingest_step(self, conn: psycopg.Connection, observer: Observer) -> None:
        """Every queued task, one after another, each in a transaction of its own that also takes the next one.
        The reading process reads the next task's file ahead while this one's last batches are written; a
        reading ahead that the next take does not confirm (a job was canceled, a clear-database request came
        in, a file was uploaded that sorts first) is discarded, and so is one left at the end of the step."""
        done: list[int] = []
        taken = repo.take_task(conn, done)
        if taken.task is not None:
            with self._status(conn, PipeStatus.INGESTING):
                self._defer_indexes(conn)
                try:
                    while taken.task is not None:
                        done.append(taken.task.id)
                        taken = self._run_task(conn, taken, done, observer)
                finally:
                    read_process.discard_read_ahead()
        # Before any job moves on to analysis (and before the analysis step of this tick); the inbound edge index
        # after the analysis's rules.
        self._rebuild_indexes(conn, bulk.BEFORE_ANALYSIS)
        self._advance_ingested_jobs(conn)

    def _defer_indexes(self, conn: psycopg.Connection) -> None:
        """Bulk mode for the files queued now when they are large against the graph (`graph.store.bulk`)."""
        document_bytes = files.document_bytes(self._settings.uploads_dir, repo.pending_documents(conn))
        if bulk.worth_deferring(conn, document_bytes, self._bulk_min_bytes):
            dropped = bulk.defer(conn)
            log.info("bulk ingest of %.0f MB of documents: indexes %s are built after the files",
                     document_bytes / 1e6, ", ".join(dropped) or "(none; the node table was busy)")

    def _rebuild_indexes(self, conn: psycopg.Connection, names: tuple[str, ...] = bulk.DEFERRABLE) -> None:
        started = time.perf_counter()
        built = bulk.rebuild(conn, names)
        if built:
            log.info("built the deferred indexes %s in %.2f s", ", ".join(built), time.perf_counter() - started)

    def _run_task(self, conn: psycopg.Connection, taken: repo.Taken, done: list[int],
                  observer: Observer) -> repo.Taken:
        """Read and write `taken.task` (begun by the take that returned it); the next task, taken in the same
        transaction as this one's outcome. The task's `start_time` is its transaction's start (the task before it
        is committed and its file's first batch taken in; the file may have been read ahead meanwhile), its
        `end_time` the last statement before its commit (`repo.complete_task`)."""
        task = taken.task
        assert task is not None
        started = time.perf_counter()
        warnings = list(task.warnings)
        stats = WriteStats()
        errors: list[str] = []
        if task.attempts > MAX_ATTEMPTS:
            errors = [GAVE_UP.format(attempts=task.attempts - 1)]
        else:
            self._copy_out(conn, task)
            if taken.following is not None:
                self._copy_out(conn, taken.following)

            def outcome(written: WriteStats) -> tuple[WriteStats, bool, repo.Taken]:
                # In the task's transaction, after its last batch: its outcome and the next take commit with the file.
                return (written, repo.complete_task(conn, task, warnings, written.nodes, written.edges),
                        repo.take_task(conn, done))

            try:
                stats, still_needed, following = write_task(
                    conn, task, self._settings, warnings, then=outcome, batch_size=self._batch_size,
                    on_progress=observer.batch_written, should_stop=self._stopping.is_set, following=taken.following)
            except Stopped:
                repo.release_task(conn, task.id)
                raise
            except IngestError as exc:
                errors = [str(exc)]
            except psycopg.OperationalError:
                # The database went away: not the file's fault; the task is read again next tick.
                raise
            except Exception as exc:
                # A reader or store bug fails this file, never the loop or the other files.
                log.exception("ingest of task %s (%s) failed", task.id, task.file_name)
                errors = [f"internal error while reading this file: {type(exc).__name__}: {exc}"]
        if errors:
            stats = WriteStats()
            with conn.transaction():
                still_needed = repo.fail_task(conn, task, errors, warnings)
                following = repo.take_task(conn, done)
        if task.owns_file and not still_needed:
            files.discard(files.local_path(self._settings.uploads_dir, task.stored_path))
        seconds = time.perf_counter() - started
        INGEST_SECONDS.labels("failed" if errors else "complete").observe(seconds)
        if errors:
            log.info("ingest of %s failed after %.2f s: %s", task.file_name, seconds, errors[0])
        else:
            log.info("ingested %s: %d records, %d nodes, %d edges in %.2f s (%.0f edges/s)", task.file_name,
                     stats.records, stats.nodes, stats.edges, seconds, stats.edges / max(seconds, 1e-6))
        observer.task_finished(task, TaskState.FAILED if errors else TaskState.COMPLETE, stats, errors)
        return following

    def _copy_out(self, conn: psycopg.Connection, task: TaskRow) -> None:
        """This host's copy of the task's upload, from the database, unless it has it already (the members of an
        archive share one)."""
        path = files.local_path(self._settings.uploads_dir, task.stored_path)
        if task.upload_id is not None and not path.exists():
            files.copy_out(repo.upload_pieces(conn, task.upload_id), path)

    def _advance_ingested_jobs(self, conn: psycopg.Connection) -> None:
        """Ended jobs whose files are all read: on to analysis, or finished if nothing was ingested."""
        for job in repo.drained_ingesting_jobs(conn):
            with conn.transaction():
                if job.completed_files + job.failed_files == 0:
                    repo.set_job_status(conn, job.id, JobStatus.COMPLETE, "no files were uploaded", ended=True)
                elif job.completed_files == 0:
                    repo.set_job_status(conn, job.id, JobStatus.FAILED,
                                        f"all {job.failed_files} files failed to ingest", ended=True)
                else:
                    repo.set_job_status(conn, job.id, JobStatus.ANALYZING, ended=False)
                    repo.request_analysis(conn)

    def _analysis_step(self, conn: psycopg.Connection) -> None:
        if not repo.analysis_wanted(conn):
            return
        # The reading process left idle by the files before is closed rather than kept through the analysis (81 MiB
        # after a million objects, at the peak of the service's and PostgreSQL's memory together); the next file
        # starts another.
        read_process.close_idle()
        with self._status(conn, PipeStatus.ANALYZING):
            repo.start_analysis(conn)
            started = time.perf_counter()
            failure = ""
            try:
                with conn.transaction():
                    self._analysis(conn)
            except psycopg.OperationalError:
                raise
            except Exception as exc:
                log.exception("analysis failed")
                failure = f"analysis failed: {type(exc).__name__}: {exc}"
            ANALYSIS_SECONDS.labels("failed" if failure else "complete").observe(time.perf_counter() - started)
            with conn.transaction():
                if not failure:
                    repo.record_complete_analysis(conn)
                jobs = repo.analyzing_jobs(conn)
                for job in jobs:
                    if failure:
                        repo.set_job_status(conn, job.id, JobStatus.FAILED, failure, ended=True)
                    elif job.failed_files:
                        repo.set_job_status(conn, job.id, JobStatus.PARTIALLY_COMPLETE,
                                            f"{job.failed_files} of {job.total_files} files failed to ingest",
                                            ended=True)
                    else:
                        repo.set_job_status(conn, job.id, JobStatus.COMPLETE, ended=True)
            # Within the status, so "idle" means the disk is settled too. The jobs' uploads went with their last
            # files; the space they took goes back now rather than when autovacuum next comes by.
            if jobs:
                repo.vacuum_uploads(conn)
            # An external server's WAL is its operator's.
            embedded = self._database.embedded is not None
            if embedded and repo.checkpoint_after_bulk_work(conn, CHECKPOINT_AFTER_WAL_BYTES):
                log.info("checkpoint after the analysis: the WAL of the graph writes before it is removed")
        if self._database.edge_projections is not None:
            # The analysed graph is the one users search next: its copy for the path searches is built now, not on
            # the first search (which would search in PostgreSQL meanwhile).
            self._database.edge_projections.refresh()
