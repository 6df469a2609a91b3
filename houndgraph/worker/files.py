"""Stored uploads on disk: deleted once read, and swept after a crash."""

from __future__ import annotations

import logging
import time
import zipfile
from collections.abc import Iterable
from pathlib import Path

# Logged as the datapipe, the name operators know from the logs' `logger` field, wherever the module lives.
log = logging.getLogger("houndgraph.datapipe.files")

# An upload is written to disk before its task row commits; a younger file may be one in flight.
SWEEP_MIN_AGE_SECONDS = 3600.0


def discard(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError:
        log.warning("could not delete the stored upload %s", path, exc_info=True)


def discard_all(paths: Iterable[str]) -> None:
    for path in paths:
        discard(Path(path))


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


def document_bytes(documents: Iterable[tuple[str, str | None]]) -> int:
    """Uncompressed size of the documents (stored path, zip member or None): a member's as its archive
    records it (read from the archive's directory, nothing is inflated), a plain file's on disk. A file that
    cannot be read counts nothing: its task will fail with the reader's message."""
    total = 0
    archives: dict[str, dict[str, int]] = {}
    for path, member in documents:
        try:
            if member is None:
                total += Path(path).stat().st_size
                continue
            if path not in archives:
                with zipfile.ZipFile(path) as archive:
                    archives[path] = {info.filename: info.file_size for info in archive.infolist()}
            total += archives[path].get(member, 0)
        except (OSError, zipfile.BadZipFile):
            continue
    return total
