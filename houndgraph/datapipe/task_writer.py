"""One ingest task: its document read by the collector readers and written by the graph store.

Runs inside the caller's transaction; the caller commits the graph writes together with the task's
new state, so a crash never leaves half a file in the graph under a task that claims to be done.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import psycopg

from houndgraph.datapipe.loop_repository import TaskRow
from houndgraph.graph.store import GraphStore, WriteStats
from houndgraph.ingest.errors import IngestError
from houndgraph.ingest.files import IngestFile, expand_upload
from houndgraph.ingest.reader import read_file
from houndgraph.settings import Settings

# 20k records a batch: measured best for time and memory (bench/ingest.py: 5k 27.3 s, 20k 22.7 s, 50k 23.8 s
# at 406 MB for 100k objects).
BATCH_SIZE = 20_000


class Stopped(Exception):
    """The datapipe is shutting down; the task is put back, unread."""


@dataclass(slots=True)
class TaskProgress:
    """What has been written of one task so far (not yet committed)."""

    task: TaskRow
    stats: WriteStats = field(default_factory=WriteStats)
    batches: int = 0


ProgressCallback = Callable[[TaskProgress], None]


def open_document(task: TaskRow, settings: Settings) -> IngestFile:
    """The task's JSON document: the stored file itself, or its member of a stored archive."""
    path = Path(task.stored_path)
    if not path.exists():
        raise IngestError(f"{task.file_name}: the stored file {path} is missing")
    if task.member_name is None:
        return IngestFile(name=task.file_name, parent_name=None, open=lambda: path.open("rb"))
    stat = path.stat()
    members = _archive_members(path, stat.st_mtime_ns, stat.st_size, settings.max_unzipped_bytes,
                               settings.max_zip_ratio)
    member = members.get(task.member_name)
    if member is None:
        raise IngestError(f"{task.member_name}: no longer in the archive {path.name}")
    return member


@lru_cache(maxsize=4)
def _archive_members(path: Path, mtime_ns: int, size: int, max_unzipped_bytes: int,
                     max_ratio: int) -> dict[str, IngestFile]:
    """An archive's members, checked once for all its tasks (checking walks every member; doing it per
    task would cost the square of the member count). Keyed by modification time and size as well, so a
    changed file is checked again."""
    del mtime_ns, size
    members = expand_upload(path, max_unzipped_bytes=max_unzipped_bytes, max_ratio=max_ratio, expect_zip=True)
    return {member.name: member for member in members}


def write_task(conn: psycopg.Connection, task: TaskRow, settings: Settings, warnings: list[str], *,
               batch_size: int = BATCH_SIZE, on_progress: ProgressCallback | None = None,
               should_stop: Callable[[], bool] = lambda: False) -> WriteStats:
    """Read and write the whole document in the open transaction; raises IngestError for a bad file."""
    document = open_document(task, settings)
    store = GraphStore(conn)
    progress = TaskProgress(task)

    def after_batch(stats: WriteStats) -> None:
        progress.stats += stats
        progress.batches += 1
        if on_progress is not None:
            on_progress(progress)
        if should_stop():
            raise Stopped()

    if should_stop():
        raise Stopped()
    # Reading and preparing the next batches overlaps with PostgreSQL applying the current one.
    store.write_all(read_file(document, batch_size=batch_size, warnings=warnings), seen_at=task.seen_at,
                    on_batch=after_batch)
    warnings.extend(_store_warnings(progress.stats))
    return progress.stats


def _store_warnings(stats: WriteStats) -> list[str]:
    out = []
    if stats.unresolved:
        out.append(f"{stats.unresolved} edges skipped: an end given by name matched no node")
    if stats.ambiguous:
        out.append(f"{stats.ambiguous} edges skipped: an end given by name matched several nodes")
    return out
