"""Driving the datapipe from a test: hold its lock so the service's loop pauses, then tick a private one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg

from houndgraph.db import Database
from houndgraph.settings import Settings
from houndgraph.worker.loop import AnalysisHook, Datapipe, no_analysis
from houndgraph.worker.loop_repository import DATAPIPE_LOCK_ID
from houndgraph.worker.task_writer import BATCH_SIZE


@contextmanager
def paused_datapipe(database: Database) -> Iterator[psycopg.Connection]:
    """A connection holding the datapipe lock: no service process ticks while it is held. A `Datapipe`
    built with `connect=lambda: conn` shares it (advisory locks nest within a session)."""
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (DATAPIPE_LOCK_ID,))
        try:
            yield conn
        finally:
            conn.execute("SELECT pg_advisory_unlock_all()")


def private_datapipe(settings: Settings, database: Database, conn: psycopg.Connection,
                     analysis: AnalysisHook = no_analysis, batch_size: int = BATCH_SIZE,
                     **setting_overrides: object) -> Datapipe:
    for name in setting_overrides:
        assert name in Settings.model_fields, name
    return Datapipe(settings.model_copy(update=setting_overrides), database, analysis=analysis,
                    batch_size=batch_size, connect=lambda: conn)
