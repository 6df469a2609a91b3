"""`houndgraph ingest PATH...`: collector files, folders of them and zip archives into the graph.

Without `--url` it works on the database of HOUNDGRAPH_DATA_DIR / HOUNDGRAPH_DATABASE_URL through the
datapipe itself (the files are read in place). If a service runs on the same database, its datapipe may
take the work; the progress is then followed from the job's counters. With `--url` the files go through
the upload API of a running service.
"""

from __future__ import annotations

import time
from pathlib import Path

import typer
from rich.console import Console

from houndgraph.cli.ingest_display import (
    FINISHED_STATUSES,
    SUCCESS_STATUSES,
    FileOutcome,
    IngestProgress,
    summary_table,
)
from houndgraph.db import Database
from houndgraph.graph.store import WriteStats
from houndgraph.models.ingest_task import TaskState
from houndgraph.settings import Settings
from houndgraph.worker.local_jobs import collect_files, job_progress, job_tasks, queue_files
from houndgraph.worker.loop import Datapipe, Observer, TaskRow
from houndgraph.worker.task_writer import TaskProgress

console = Console(stderr=True)
# While another process runs the datapipe, how often its progress is read back.
POLL_SECONDS = 0.5


def ingest(
    paths: list[Path] = typer.Argument(..., exists=True, help="JSON files, zip archives, or folders of them."),
    url: str | None = typer.Option(None, help="Upload to the service at this URL instead of using the database."),
    username: str | None = typer.Option(None, envvar="HOUNDGRAPH_USERNAME", help="With --url: log in as this user."),
    password: str | None = typer.Option(None, envvar="HOUNDGRAPH_PASSWORD", help="With --url: the user's password."),
    token_id: str | None = typer.Option(None, envvar="HOUNDGRAPH_TOKEN_ID", help="With --url: API token id."),
    token_key: str | None = typer.Option(None, envvar="HOUNDGRAPH_TOKEN_KEY", help="With --url: API token key."),
    wait: bool = typer.Option(True, help="With --url: wait for the job to finish and show every file's result."),
) -> None:
    """Ingest SharpHound, AzureHound and OpenGraph files, with a progress bar and a summary table."""
    files = collect_files(paths)
    if not files:
        console.print("[red]no .json or .zip files found[/]")
        raise typer.Exit(2)
    if url is not None:
        from houndgraph.cli import ingest_remote

        ok = ingest_remote.run(console, url, files, username=username, password=password, token_id=token_id,
                               token_key=token_key, wait=wait)
    else:
        ok = _ingest_locally(files)
    raise typer.Exit(0 if ok else 1)


class _BarObserver(Observer):
    """Feeds the datapipe's progress, batch by batch, to the bar."""

    def __init__(self, bar: IngestProgress, already_done: int) -> None:
        self.bar = bar
        self.files_done = already_done
        self.finished = WriteStats()
        self.current = WriteStats()

    def batch_written(self, progress: TaskProgress) -> None:
        self.current = progress.stats
        self._show(progress.task.file_name)

    def task_finished(self, task: TaskRow, state: TaskState, stats: WriteStats, errors: list[str]) -> None:
        self.files_done += 1
        self.finished += stats
        self.current = WriteStats()
        self._show(task.file_name)

    def _show(self, file_name: str) -> None:
        self.bar.update(files_done=self.files_done, objects=self.finished.nodes + self.current.nodes,
                        edges=self.finished.edges + self.current.edges, description=file_name)


def _ingest_locally(files: list[Path]) -> bool:
    settings = Settings()
    database = Database.open(settings)
    pipe = Datapipe(settings, database)
    try:
        database.migrate()
        with database.connect_raw(autocommit=True) as conn:
            job_id = queue_files(conn, settings, files)
            job = job_progress(conn, job_id)
            started = time.monotonic()
            with IngestProgress(console, job.total_files) as bar:
                observer = _BarObserver(bar, job.failed_files)
                while job.status not in FINISHED_STATUSES:
                    ran = pipe.tick(observer)
                    job = job_progress(conn, job_id)
                    if not ran:  # another process holds the datapipe: follow the job's committed counters
                        bar.update(files_done=job.completed_files + job.failed_files, objects=job.nodes_written,
                                   edges=job.edges_written, description="ingesting (by the running service)")
                        time.sleep(POLL_SECONDS)
                bar.update(files_done=job.completed_files + job.failed_files, objects=job.nodes_written,
                           edges=job.edges_written, description="done")
            outcomes = [FileOutcome(t.file_name, t.parent_file_name or "", t.state, t.nodes_written, t.edges_written,
                                    list(t.errors), list(t.warnings)) for t in job_tasks(conn, job_id)]
        console.print(summary_table(outcomes, job.status, job.status_message, time.monotonic() - started))
        return job.status in SUCCESS_STATUSES
    finally:
        pipe.close()
        database.close()
