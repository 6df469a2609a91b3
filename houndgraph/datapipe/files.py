"""Stored uploads on disk: deleted once read, and swept after a crash."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger(__name__)

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
