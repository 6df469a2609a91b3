"""A datapipe waiting for its next tick starts work as soon as the work is committed, from any connection, and an
idle datapipe does not wake itself."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

from houndgraph.db import Database
from houndgraph.settings import Settings
from houndgraph.worker import loop_repository
from houndgraph.worker.loop import Datapipe, Observer
from tests.conftest import scratch_database

LONG_INTERVAL = 60.0


class CountingDatapipe(Datapipe):
    def __init__(self, settings: Settings, database: Database) -> None:
        self.analysed = threading.Event()
        self.ticks = 0
        super().__init__(settings, database, analysis=lambda conn: self.analysed.set())

    def tick(self, observer: Observer | None = None) -> bool:
        self.ticks += 1
        return super().tick(observer)


def _ticks_settle(pipe: CountingDatapipe, seconds: float = 1.5) -> int:
    """The tick count once it has not moved for `seconds` (the first tick, and any its own writes asked for)."""
    count = -1
    while count != pipe.ticks:
        count = pipe.ticks
        time.sleep(seconds)
    return count


@contextmanager
def waiting_datapipe(database: Database, data_dir: Path) -> Iterator[tuple[CountingDatapipe, str]]:
    """A datapipe with a long interval on a database of its own, and that database's connection string."""
    with scratch_database(database, "hg_wake") as scratch:
        pipe = CountingDatapipe(Settings(data_dir=data_dir, datapipe_interval=LONG_INTERVAL), scratch).start()
        try:
            yield pipe, scratch.conninfo
        finally:
            pipe.stop()


def test_an_analysis_request_wakes_a_waiting_datapipe_at_once(database: Database, tmp_path: Path) -> None:
    with waiting_datapipe(database, tmp_path) as (pipe, conninfo):
        idle = _ticks_settle(pipe)
        assert idle == 1, "an idle datapipe ticks once, then waits for its interval"
        with psycopg.connect(conninfo) as other:  # committed on leaving the block
            loop_repository.request_analysis(other)
        asked = time.monotonic()
        assert pipe.analysed.wait(10), "the request was not taken up before the interval"
        assert time.monotonic() - asked < LONG_INTERVAL / 4
        # The analysis's own writes wake it at most once more; then it waits again.
        after = _ticks_settle(pipe)
        assert after - idle <= 2, f"{after - idle} ticks for one request"


def test_a_write_that_gives_no_work_does_not_wake_it(database: Database, tmp_path: Path) -> None:
    with waiting_datapipe(database, tmp_path) as (pipe, conninfo):
        idle = _ticks_settle(pipe)
        with psycopg.connect(conninfo) as other:
            # The datapipe's status and an analysis request withdrawn are nothing to do.
            other.execute("UPDATE datapipe_status SET updated_at = now(), analysis_requested = false")
        assert _ticks_settle(pipe) == idle
        assert not pipe.analysed.is_set()
