"""The datapipe's copies of stored uploads on this host's disk: copied out of the database before they are read,
deleted once read, and swept after a crash."""

from __future__ import annotations

import logging
import os
import time
import zipfile
from collections.abc import Iterable
from pathlib import Path

# Logged as the datapipe, the name operators know from the logs' `logger` field, wherever the module lives.
log = logging.getLogger("houndgraph.datapipe.files")

# An upload is written to disk before its task row commits; a younger file may be one in flight.
SWEEP_MIN_AGE_SECONDS = 3600.0


def local_path(uploads_dir: Path, stored_path: str) -> Path:
    """Where this host reads a task's file: an upload's copy under its uploads folder, or a file read in place
    (an absolute path, which the join leaves as it is)."""
    return uploads_dir.resolve() / stored_path


def copy_out(pieces: Iterable[bytes], path: Path) -> bool:
    """Write the upload's pieces to `path` (readable by the service's user alone), under a partial name until the
    last piece is written, so that a copy cut short is never read. False when the upload has no pieces (its rows
    are gone): nothing is written, and the reader reports the file missing."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".part")
    written = False
    with os.fdopen(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as handle:
        for piece in pieces:
            handle.write(piece)
            written = True
    if not written:
        partial.unlink(missing_ok=True)
        return False
    partial.rename(path)
    return True


def discard(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError:
        log.warning("could not delete the stored upload %s", path, exc_info=True)


def discard_all(uploads_dir: Path, stored_paths: Iterable[str]) -> None:
    for stored_path in stored_paths:
        discard(local_path(uploads_dir, stored_path))


def sweep_uploads(uploads_dir: Path, needed: set[str], min_age: float = SWEEP_MIN_AGE_SECONDS) -> int:
    """Delete stored files no unfinished task needs and older than `min_age`, and empty job folders."""
    uploads_dir = uploads_dir.resolve()  # tasks keep absolute paths
    if not uploads_dir.is_dir():
        return 0
    removed = 0
    cutoff = time.time() - min_age
    for path in sorted(uploads_dir.rglob("*"), reverse=True):  # children before their folder
        try:
            if path.is_dir():
                if not any(path.iterdir()) and path.stat().st_mtime < cutoff:
                    path.rmdir()
            elif str(path) not in needed and path.stat().st_mtime < cutoff:
                path.unlink()
                removed += 1
        except OSError:
            log.warning("could not sweep %s", path, exc_info=True)
    return removed


def document_bytes(uploads_dir: Path, documents: Iterable[tuple[str, str | None, int | None]]) -> int:
    """Uncompressed size of the documents (stored path, zip member or None, size if known at upload): the known
    size, else a member's as its archive records it (read from the archive's directory, nothing is inflated), a
    plain file's on disk. A file that cannot be read counts nothing: its task will fail with the reader's message."""
    total = 0
    archives: dict[Path, dict[str, int]] = {}
    for stored_path, member, known in documents:
        if known is not None:
            total += known
            continue
        path = local_path(uploads_dir, stored_path)
        try:
            if member is None:
                total += path.stat().st_size
                continue
            if path not in archives:
                with zipfile.ZipFile(path) as archive:
                    archives[path] = {info.filename: info.file_size for info in archive.infolist()}
            total += archives[path].get(member, 0)
        except (OSError, zipfile.BadZipFile):
            continue
    return total
