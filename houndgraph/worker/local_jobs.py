"""Jobs for files on this machine (`houndgraph ingest` without `--url`): queued as tasks that read the
files in place, then ingested by the same datapipe ticks as uploads, and followed until they end."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import psycopg

from houndgraph.ingest.errors import IngestError
from houndgraph.ingest.files import EmptyArchive, plan_tasks
from houndgraph.models.ingest_job import JobStatus
from houndgraph.settings import Settings
from houndgraph.worker import loop_repository as repo
from houndgraph.worker.loop_repository import JobProgress, TaskSummary

COLLECTOR_SUFFIXES = (".json", ".zip")


def collect_files(paths: Iterable[Path]) -> list[Path]:
    """Files named directly, and the .json and .zip files under named folders (sorted, recursively)."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in COLLECTOR_SUFFIXES))
        else:
            found.append(path)
    return [p.resolve() for p in found]


def queue_files(conn: psycopg.Connection, settings: Settings, files: list[Path]) -> int:
    """One ended job with a task per document (zip members each); returns its id. A file that cannot be
    opened, or an archive that breaks a limit, becomes a failed task naming why."""
    with conn.transaction():
        job_id = repo.create_local_job(conn)
        for path in files:
            try:
                # The first bytes decide, as for an upload whose content type is not known.
                planned = plan_tasks(path, max_unzipped_bytes=settings.max_unzipped_bytes,
                                     max_ratio=settings.max_zip_ratio)
            except EmptyArchive as exc:
                repo.add_local_task(conn, job_id, path.name, None, str(path), None, errors=[str(exc)],
                                    warnings=exc.skipped)
                continue
            except (IngestError, OSError) as exc:
                repo.add_local_task(conn, job_id, path.name, None, str(path), None, errors=[str(exc)], warnings=[])
                continue
            for task in planned:
                repo.add_local_task(conn, job_id, task.file_name, path.name if task.member_name else None,
                                    str(path), task.member_name, errors=[], warnings=task.warnings)
        repo.set_job_status(conn, job_id, JobStatus.INGESTING, ended=False)
    return job_id


def job_progress(conn: psycopg.Connection, job_id: int) -> JobProgress:
    progress = repo.job_progress(conn, job_id)
    assert progress is not None
    return progress


def job_tasks(conn: psycopg.Connection, job_id: int) -> list[TaskSummary]:
    return repo.job_tasks(conn, job_id)
