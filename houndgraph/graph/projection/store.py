"""One projection of the edge table per host, in the data directory, and which one a request may use.

The copy of each edge generation lives in `<directory>/<version>/` (version: the database's id and the edge
generation, migration 0032), written by whichever worker of the host builds it first, under a file lock, then
published by renaming its directory: every worker maps the same files, so the host holds one copy whatever the
number of workers. A request uses the copy only when its version is the one the request read at its start
(`houndgraph.db.START_REQUEST`): a write committed before the request began is always in the answer. Until that
copy is published the request searches in PostgreSQL, and a build begins in the background; searches are what
ask for copies, so a graph being written (an ingest, an analysis) is copied once it is searched, not at each commit.
"""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg

from houndgraph.graph.projection.csr import META, EdgeProjection
from houndgraph.graph.projection.reading import current_version, read_projection
from houndgraph.graph.projection.search import PairSearch

log = logging.getLogger(__name__)

PROJECTION_DIRECTORY = "projection"  # under the data directory
LOCK_FILE = "build.lock"
BUILDING = "building-"


# For each connection serving a request: how to find the copy of the edges that request sees. The graph library's
# searches take a connection, not a request: they look their copy up here (`attached_search`).
_ATTACHED: weakref.WeakKeyDictionary[Any, Callable[[], PairSearch | None]] = weakref.WeakKeyDictionary()


def attach(conn: Any, find: Callable[[], PairSearch | None]) -> None:
    _ATTACHED[conn] = find


def detach(conn: Any) -> None:
    _ATTACHED.pop(conn, None)


def attached_search(conn: Any) -> PairSearch | None:
    """The search over the copy of the edges the request on `conn` sees, when there is one and it is built."""
    find = _ATTACHED.get(conn)
    return find() if find is not None else None


class ProjectionStore:
    """The copies in `directory` and the one this process has mapped; builds run in one background thread."""

    def __init__(self, directory: Path, connect: Callable[[], psycopg.Connection[Any]]) -> None:
        self.directory = directory
        self._connect = connect
        self._mapped: tuple[str, PairSearch] | None = None
        self._wanted = threading.Event()
        self._closed = False
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self.builds = 0  # copies this process built (tests and benchmarks read it)

    def search_for(self, version: str) -> PairSearch | None:
        """The search over the copy of `version`, if it is published; otherwise None, and a build is asked for."""
        mapped = self._mapped
        if mapped is not None and mapped[0] == version:
            return mapped[1]
        path = self.directory / version
        if (path / META).exists():
            try:
                search = PairSearch(EdgeProjection.load(path))
            except OSError:  # removed by a newer build since the check: the request searches in PostgreSQL
                return None
            self._mapped = (version, search)
            return search
        self._ask_for_build()
        return None

    def wait_for(self, version: str, seconds: float) -> PairSearch | None:
        """`search_for(version)` once the copy is published, waiting up to `seconds` (tests, benchmarks)."""
        deadline = time.monotonic() + seconds
        while (search := self.search_for(version)) is None and time.monotonic() < deadline:
            time.sleep(0.02)
        return search

    def refresh(self) -> None:
        """Build the copy of the edges as they are now, in the background, unless it is published already."""
        self._ask_for_build()

    def close(self) -> None:
        self._closed = True
        self._wanted.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def _ask_for_build(self) -> None:
        if self._closed:
            return
        with self._start_lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._build_when_asked, name="edge-projection", daemon=True)
                self._thread.start()
        self._wanted.set()

    def _build_when_asked(self) -> None:
        while True:
            self._wanted.wait()
            self._wanted.clear()
            if self._closed:
                return
            try:
                self._build_current()
            except Exception:  # the requests go on searching in PostgreSQL; the next one asks again
                log.exception("building the path projection failed")
                time.sleep(1)

    def _build_current(self) -> None:
        """Publish the copy of the database's current edge generation, unless it is there already (another worker
        may have built it while this one waited for the lock)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        with (self.directory / LOCK_FILE).open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            with self._connect() as conn:
                if (self.directory / current_version(conn) / META).exists():
                    return
                conn.rollback()
                started = time.perf_counter()
                version, projection = read_projection(conn)
            if (self.directory / version / META).exists():
                return
            # Only the holder of the lock builds: a half-written copy left here is a dead process's.
            for left in self.directory.glob(f"{BUILDING}*"):
                shutil.rmtree(left, ignore_errors=True)
            building = self.directory / f"{BUILDING}{os.getpid()}"
            projection.save(building)
            os.rename(building, self.directory / version)
            self.builds += 1
            log.info("path projection %s: %d nodes, %d edges, %.1f bytes per edge, built in %.2f s", version,
                     len(projection.node_ids), projection.edge_count,
                     projection.nbytes / max(projection.edge_count, 1), time.perf_counter() - started)
            for old in self.directory.iterdir():
                # Workers still searching an old copy keep its pages until they map the new one.
                if old.is_dir() and old.name != version:
                    shutil.rmtree(old, ignore_errors=True)
