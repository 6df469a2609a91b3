"""One ingest task: its document read by the collector readers (in the reading process) and written by the graph store.

The graph writes and the caller's bookkeeping (`then`: the task's new state, the next take) commit in one
transaction, so a crash never leaves half a file in the graph under a task that claims to be done.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import chain
from typing import TypeVar

import psycopg

from houndgraph.graph.kind_catalogue import KindCatalogue
from houndgraph.graph.store import GraphStore, WriteStats, rfc3339
from houndgraph.graph.store.merge import PreparedBatch
from houndgraph.graph.store.read_ahead import ReadAhead
from houndgraph.settings import Settings
from houndgraph.worker import files
from houndgraph.worker.loop_repository import TaskRow
from houndgraph.worker.read_process import ReadJob, reading_process

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
Outcome = TypeVar("Outcome")


def read_job(task: TaskRow, settings: Settings, batch_size: int = BATCH_SIZE) -> ReadJob:
    """What the reading process is asked to read for `task`."""
    return ReadJob(file_name=task.file_name, stored_path=str(files.local_path(settings.uploads_dir, task.stored_path)),
                   member_name=task.member_name,
                   batch_size=batch_size, lastseen=rfc3339(task.seen_at),
                   max_unzipped_bytes=settings.max_unzipped_bytes, max_zip_ratio=settings.max_zip_ratio)


def write_task(conn: psycopg.Connection, task: TaskRow, settings: Settings, warnings: list[str], *,
               then: Callable[[WriteStats], Outcome], batch_size: int = BATCH_SIZE,
               on_progress: ProgressCallback | None = None, should_stop: Callable[[], bool] = lambda: False,
               following: TaskRow | None = None) -> Outcome:
    """Read and write the whole document in a transaction of its own, and `then(stats)` in the same transaction after
    its last batch; returns what `then` returns. Raises IngestError for a bad file (nothing of it written).
    The transaction begins once the file's first batch is taken in from the reading process (which has usually read
    it ahead, while the file before was written): no transaction waits on the hand-over of a file's only batch.
    `following`, the task expected next, is read ahead while this one's last batches are written
    (`read_process`): the next call, for that task, takes its batches."""
    job = read_job(task, settings, batch_size)
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
    # The kinds that the tasks before this one created are committed now: read before this task's transaction, they
    # enter the process-wide cache, so the writer does not look them up again (two round trips for each batch of
    # kinds it lacks: ten for a fresh collection's domain file).
    KindCatalogue(conn).all()
    ahead = read_job(following, settings, batch_size) if following is not None else None
    # The next batch is read and prepared in the reading process while this one is written, and taken in
    # (unpickled, `PreparedBatch.take_in`) by a thread of this process while PostgreSQL applies this one.
    with (
        reading_process(job) as reader,
        ReadAhead(reader.read(job, warnings, ahead=ahead), PreparedBatch.take_in) as batches,
    ):
        first = next(batches, None)
        with conn.transaction():
            store.write_prepared(chain(() if first is None else (first,), batches), seen_at=task.seen_at,
                                 on_batch=after_batch)
            warnings.extend(_store_warnings(progress.stats))
            return then(progress.stats)


def _store_warnings(stats: WriteStats) -> list[str]:
    out = []
    if stats.unresolved:
        out.append(f"{stats.unresolved} edges skipped: an end given by name matched no node")
    if stats.ambiguous:
        out.append(f"{stats.ambiguous} edges skipped: an end given by name matched several nodes")
    return out
