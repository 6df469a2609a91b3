"""The WAL of a large write leaves the embedded server's disk once its analysis has committed: the datapipe asks
for a checkpoint after an analysis that followed enough WAL, and the server removes the segments before it rather
than keeping them for reuse (`wal_recycle` off)."""

from __future__ import annotations

import psycopg
import pytest

from houndgraph.db import Database
from houndgraph.settings import Settings
from houndgraph.worker import loop
from houndgraph.worker import loop_repository as repo
from tests.datapipe.helpers import paused_datapipe, private_datapipe

# Segments the test fills before the analysis: more than min_wal_size (80 MB, five segments), which a server that
# recycles keeps ahead of its current one after any checkpoint.
SEGMENTS = 8


def redo_point(conn: psycopg.Connection) -> str:
    row = conn.execute("SELECT redo_lsn::text FROM pg_control_checkpoint()").fetchone()
    assert row is not None
    return row[0]


def wal_segments(conn: psycopg.Connection) -> int:
    row = conn.execute("SELECT count(*) FROM pg_ls_waldir() WHERE name ~ '^[0-9A-F]{24}$'").fetchone()
    assert row is not None
    return row[0]


def fill_segments(conn: psycopg.Connection, count: int) -> None:
    """`count` WAL segments written and switched away from (a switch with nothing written since does nothing)."""
    for _ in range(count):
        conn.execute("SELECT pg_logical_emit_message(false, 'houndgraph-test', 'fills a segment')")
        conn.execute("SELECT pg_switch_wal()")


def analyse_once(settings: Settings, database: Database, conn: psycopg.Connection) -> None:
    with conn.transaction():
        repo.request_analysis(conn)
    private_datapipe(settings, database, conn).tick()
    assert not repo.analysis_wanted(conn)


def test_an_analysis_after_a_large_write_checkpoints_and_the_old_segments_leave_the_disk(
        server_settings: Settings, database: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    # Eight segments stand for a large upload's WAL; the threshold is lowered to what the test writes.
    monkeypatch.setattr(loop, "CHECKPOINT_AFTER_WAL_BYTES", 16 << 20)
    with paused_datapipe(database) as conn:
        fill_segments(conn, SEGMENTS)
        before = redo_point(conn)
        assert wal_segments(conn) >= SEGMENTS
        analyse_once(server_settings, database, conn)
        assert redo_point(conn) != before
        # The current segment, and at most one made ahead by the checkpoint: nothing kept for reuse.
        assert wal_segments(conn) <= 2


def test_an_analysis_after_a_small_write_takes_no_checkpoint_of_its_own(
        server_settings: Settings, database: Database) -> None:
    with paused_datapipe(database) as conn:
        conn.execute("CHECKPOINT")
        before = redo_point(conn)
        fill_segments(conn, 1)  # 16 MB, far below the threshold
        analyse_once(server_settings, database, conn)
        assert redo_point(conn) == before
