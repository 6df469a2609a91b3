"""Reading in a process of its own: a file's batches are read and prepared there while this process writes them.

Reading a collector file and preparing its batches (`read_prepared`: `ingest` reads cuts, the store's
`columns.prepare_cut` prepares them) is Python work: about three quarters of
the Python time of an ingest (py-spy, 100k objects). In a thread it shares the interpreter lock with the
writer, so reading, writing and the web requests of the datapipe's process took turns on one core while
PostgreSQL used the other. The reading process gives the reading a core of its own.

One reading process serves one file after another (`python -m houndgraph.worker.read_process FD`). Messages
are pickled over a socket pair: the parent sends a `ReadJob`; the child answers `("batch", PreparedBatch)` for
each batch, then `("done", warnings)`, or `("failed", message, warnings)` for a file that cannot be read (an
`IngestError`), or `("crashed", traceback)` for anything else. The child prepares the next batch while the
parent writes the last one, and waits in `send` once the socket's buffer is full: large batches are at most
about two in flight, small ones (a few KB) can all be sent before the parent takes the first.

The next file is read ahead: with a file's job the parent may send the job of the file it expects to read next
(`read(job, warnings, ahead=...)`). The child takes it from the socket as soon as it has answered the first, so
it reads the next file while the parent writes the last batches of this one and commits it; its batches wait in
the socket (and the child in `send`) until the parent reads that job. At most one file is read ahead, and its
batches are bounded by the socket's buffer as any file's are. A process holding a reading ahead is kept idle
for the job it holds: `reading_process(job)` hands it to that job, and closes it for any other.

A reading left before its end (a write failed, the datapipe stops), or read ahead for a file that is not taken
(`discard_read_ahead`), cannot be resumed: that child is killed. An idle child is kept for the next file and
closed once it has been idle for `IDLE_SECONDS`; it also ends when its parent does (the socket closes).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from multiprocessing.connection import Connection
from pathlib import Path

import houndgraph
from houndgraph.graph.store.columns import prepare_cut
from houndgraph.graph.store.merge import PreparedBatch
from houndgraph.graph.store.read_ahead import bulk_tuning
from houndgraph.ingest.errors import IngestError
from houndgraph.ingest.files import IngestFile, expand_upload
from houndgraph.ingest.reader import DEFAULT_BATCH_SIZE, read_cuts

# An idle reading process is closed after this long (it holds memory from its last file).
IDLE_SECONDS = 60.0
_EXIT_WAIT_SECONDS = 5.0
# Where this process imported houndgraph from: the reading process imports the same code, whatever its current
# directory holds (`-P` keeps that directory off its import path).
_IMPORT_ROOT = str(Path(houndgraph.__file__).resolve().parent.parent)


def read_prepared(file: IngestFile, *, lastseen: str, batch_size: int = DEFAULT_BATCH_SIZE,
                  warnings: list[str] | None = None) -> Iterator[PreparedBatch]:
    """The file's batches as `read_file` cuts them, each prepared for the writer by column (`prepare_cut`)."""
    cuts = read_cuts(file, batch_size=batch_size, warnings=warnings)
    try:
        for cut in cuts:
            yield prepare_cut(cut, lastseen)
    finally:
        cuts.close()


@dataclass(frozen=True, slots=True)
class ReadJob:
    """One document to read: a stored file, or a member of a stored zip archive."""

    file_name: str
    stored_path: str
    member_name: str | None
    batch_size: int
    # The `lastseen` stamped on every record and edge (`encoding.rfc3339` of the task's seen_at).
    lastseen: str
    max_unzipped_bytes: int
    max_zip_ratio: int


class ReadingCrashed(RuntimeError):
    """The reading process failed on something other than a bad file (a bug), or died."""


def open_document(job: ReadJob) -> IngestFile:
    """The job's JSON document: the stored file itself, or its member of a stored archive."""
    path = Path(job.stored_path)
    if not path.exists():
        raise IngestError(f"{job.file_name}: the stored file {path} is missing")
    if job.member_name is None:
        return IngestFile(name=job.file_name, parent_name=None, open=lambda: path.open("rb"))
    stat = path.stat()
    members = _archive_members(path, stat.st_mtime_ns, stat.st_size, job.max_unzipped_bytes, job.max_zip_ratio)
    member = members.get(job.member_name)
    if member is None:
        raise IngestError(f"{job.member_name}: no longer in the archive {path.name}")
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


# --- the parent's side ---------------------------------------------------------------------------


class ReadingProcess:
    def __init__(self) -> None:
        parent, child = socket.socketpair()
        with child:
            # A session of its own: a Ctrl-C at the terminal reaches the service, which stops the datapipe,
            # rather than every reading process at once.
            self._process = subprocess.Popen(
                [sys.executable, "-P", "-m", __name__, str(child.fileno())], env=_child_environment(),
                pass_fds=(child.fileno(),), stdin=subprocess.DEVNULL, start_new_session=True,
            )
        self._connection = Connection(parent.detach())
        # The job whose answer the parent is taking in (None between files), and the one sent ahead of it.
        self._reading: ReadJob | None = None
        self.ahead: ReadJob | None = None
        self.idle_since = time.monotonic()

    @property
    def pid(self) -> int:
        return self._process.pid

    def usable(self, job: ReadJob | None = None) -> bool:
        """Alive and between files, with nothing read ahead or the reading of `job` ahead."""
        return self._reading is None and self.ahead in (None, job) and self._process.poll() is None

    def read(self, job: ReadJob, warnings: list[str], *, ahead: ReadJob | None = None) -> Iterator[PreparedBatch]:
        """The file's prepared batches; its warnings are appended to `warnings` when the reading ends.
        Raises `IngestError` for a file that cannot be read, `ReadingCrashed` if the process failed.
        `ahead`, the job expected next, is sent at once: the process reads it when it is done with this one."""
        if self.ahead not in (None, job):
            raise ValueError(f"{job.file_name}: this process reads {self.ahead.file_name} ahead")
        self._reading = job
        if self.ahead is None:
            self._send(job)
        self.ahead = None
        if ahead is not None:
            self._send(ahead)
            self.ahead = ahead
        while True:
            message = self._receive()
            if message[0] == "batch":
                yield message[1]
                continue
            self._reading = None
            self.idle_since = time.monotonic()
            if message[0] == "done":
                warnings.extend(message[1])
                return
            if message[0] == "failed":
                warnings.extend(message[2])
                raise IngestError(message[1])
            raise ReadingCrashed(f"the reading process failed: {message[1]}")

    def _send(self, job: ReadJob) -> None:
        try:
            self._connection.send(job)
        except OSError as exc:
            raise ReadingCrashed(f"the reading process is gone ({self._exit()})") from exc

    def _receive(self) -> tuple:  # type: ignore[type-arg]
        try:
            return self._connection.recv()  # type: ignore[no-any-return]
        except (EOFError, OSError) as exc:
            raise ReadingCrashed(f"the reading process ended while reading ({self._exit()})") from exc

    def _exit(self) -> str:
        try:
            code = self._process.wait(_EXIT_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            return "still running"
        return f"exit code {code}"

    def close(self) -> None:
        """Ends the process: a clean exit between files, killed in the middle of one or reading one ahead."""
        self._connection.close()
        if self._reading is not None or self.ahead is not None:
            self._process.kill()
        try:
            self._process.wait(_EXIT_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


def _child_environment() -> dict[str, str]:
    paths = [_IMPORT_ROOT, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


_lock = threading.Lock()
_idle: list[ReadingProcess] = []


@contextmanager
def reading_process(job: ReadJob | None = None) -> Iterator[ReadingProcess]:
    """An idle reading process of this process, or a new one; kept for the next file if its reading ended.
    The process that reads `job` ahead if there is one; an idle one that reads another job ahead is closed."""
    with _lock:
        process = next((idle for idle in _idle if idle.ahead is not None and idle.ahead == job), None)
        if process is None and _idle:
            process = _idle[-1]
        if process is not None:
            _idle.remove(process)
    if process is not None and not process.usable(job):
        process.close()
        process = None
    if process is None:
        process = ReadingProcess()
    try:
        yield process
    finally:
        if process.usable(process.ahead):
            with _lock:
                _idle.append(process)
        else:
            process.close()


def close_idle(older_than: float = 0.0) -> None:
    """Close the idle reading processes idle for longer than `older_than` seconds (all by default)."""
    now = time.monotonic()
    with _lock:
        closing = [process for process in _idle if now - process.idle_since >= older_than]
        _idle[:] = [process for process in _idle if process not in closing]
    for process in closing:
        process.close()


def discard_read_ahead() -> None:
    """Close the idle processes that read a file ahead: no one will take its batches (its task was not the next
    one after all, or the datapipe leaves its ingest step)."""
    with _lock:
        closing = [process for process in _idle if process.ahead is not None]
        _idle[:] = [process for process in _idle if process not in closing]
    for process in closing:
        process.close()


# --- the child's side ----------------------------------------------------------------------------


def serve(connection: Connection) -> None:
    """Read one job after another until the parent closes the connection."""
    while True:
        try:
            job = connection.recv()
        except (EOFError, OSError):
            return
        warnings: list[str] = []
        try:
            with bulk_tuning():
                for batch in read_prepared(open_document(job), lastseen=job.lastseen, batch_size=job.batch_size,
                                           warnings=warnings):
                    if not _send(connection, ("batch", batch)):
                        return
            answer: tuple[object, ...] = ("done", warnings)
        except IngestError as exc:
            answer = ("failed", str(exc), warnings)
        except Exception:
            answer = ("crashed", traceback.format_exc())
        if not _send(connection, answer):
            return


def _send(connection: Connection, message: tuple[object, ...]) -> bool:
    """False when the parent is gone or has given up on this reading (it kills the process then)."""
    try:
        connection.send(message)
    except OSError:
        return False
    return True


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    serve(Connection(int(sys.argv[1])))
