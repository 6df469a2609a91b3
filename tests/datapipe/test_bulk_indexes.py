"""Bulk mode: a large job builds some node indexes and the inbound edge index after its files; the graph is the
same, and an index a job dropped is never left missing (after the job, or at the next start after a crash)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import psycopg

from houndgraph.analysis import run_analysis
from houndgraph.db import Database
from houndgraph.graph.store import bulk
from houndgraph.settings import Settings
from houndgraph.worker import local_jobs
from houndgraph.worker.loop import Datapipe, Observer, analyse, build_inbound_edge_index, no_analysis
from houndgraph.worker.task_writer import TaskProgress
from tests.conftest import empty_graph_tables
from tests.datapipe.helpers import paused_datapipe
from tests.datapipe.test_crash_safety import graph_fingerprint
from tests.file_upload.helpers import TESTLAB

FILES = sorted(TESTLAB.glob("*.json"))
INDEXES = "SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('node', 'edge') ORDER BY indexname"


class Deferrals(Observer):
    """The indexes deferred while each batch was written."""

    def __init__(self, conn: psycopg.Connection) -> None:
        self.conn = conn
        self.seen: list[list[str]] = []

    def batch_written(self, progress: TaskProgress) -> None:
        self.seen.append(bulk.deferred(self.conn))


def ingest(db: Database, tmp_path: Path, bulk_min_bytes: int) -> tuple[Deferrals, tuple[int, int, str, str],
                                                                         list[tuple[str, str]], list[tuple[str]]]:
    """The lab through a datapipe of the test's own into an empty graph (the service's loop paused)."""
    settings = Settings(data_dir=tmp_path)
    with paused_datapipe(db) as conn:
        empty_graph_tables(conn)
        pipe = Datapipe(settings, db, analysis=no_analysis, connect=lambda: conn, bulk_min_bytes=bulk_min_bytes)
        local_jobs.queue_files(conn, settings, FILES)
        observer = Deferrals(conn)
        assert pipe.tick(observer)
        # Served by the trigram and kind indexes once they exist again.
        found = conn.execute(
            "SELECT properties->>'objectid' FROM node WHERE properties->>'name' ILIKE %s "
            "AND kind_ids @> ARRAY[(SELECT id FROM kind WHERE name = 'User')]::smallint[] ORDER BY 1", ("%ADMIN%",)
        ).fetchall()
        # And the members of Domain Admins by the inbound edge index.
        found += conn.execute(
            "SELECT s.properties->>'objectid' FROM edge e JOIN node s ON s.id = e.start_id "
            "JOIN node g ON g.id = e.end_id WHERE g.properties->>'objectid' LIKE %s "
            "AND e.kind_id = (SELECT id FROM kind WHERE name = 'MemberOf') ORDER BY 1", ("%-512",)
        ).fetchall()
        return observer, graph_fingerprint(conn), conn.execute(INDEXES).fetchall(), found


def test_a_large_job_builds_the_node_indexes_and_the_inbound_edge_index_after_its_files_and_writes_the_same_graph(
        empty_graph: Database, tmp_path: Path) -> None:
    kept, graph, indexes, found = ingest(empty_graph, tmp_path / "plain", bulk_min_bytes=1 << 40)
    deferred, bulk_graph, bulk_indexes, bulk_found = ingest(empty_graph, tmp_path / "bulk", bulk_min_bytes=1)
    assert kept.seen and not any(kept.seen), "a small job keeps every index"
    assert deferred.seen and all(names == sorted(bulk.DEFERRABLE) for names in deferred.seen)
    assert all("edge_end_kind_start_idx" in names for names in deferred.seen)
    assert bulk_graph == graph
    assert bulk_indexes == indexes, "every index is back, as it was defined"
    assert bulk_found == found and found


def test_indexes_a_job_deferred_before_a_crash_are_built_at_the_next_start(empty_graph: Database,
                                                                           tmp_path: Path) -> None:
    with paused_datapipe(empty_graph) as conn:
        before = conn.execute(INDEXES).fetchall()
        # What a datapipe that died in the middle of a large job leaves behind.
        assert bulk.defer(conn) == sorted(bulk.DEFERRABLE)
        assert len(conn.execute(INDEXES).fetchall()) == len(before) - len(bulk.DEFERRABLE)
        pipe = Datapipe(Settings(data_dir=tmp_path), empty_graph, analysis=no_analysis, connect=lambda: conn)
        assert pipe.tick()
        assert conn.execute(INDEXES).fetchall() == before
        assert bulk.deferred(conn) == []


def test_a_job_does_not_wait_long_for_a_busy_node_table(empty_graph: Database) -> None:
    with empty_graph.connect_raw() as reader, paused_datapipe(empty_graph) as conn:
        reader.execute("SELECT count(*) FROM node")  # holds the table until it commits
        assert bulk.defer(conn, lock_timeout="100ms") == []
        assert bulk.deferred(conn) == []
        reader.rollback()


def analysed(db: Database, tmp_path: Path, hook: Callable[[psycopg.Connection], None]) -> list[tuple[str, str]]:
    """The lab in bulk mode through a datapipe whose analysis is `hook`; the indexes after the tick."""
    settings = Settings(data_dir=tmp_path)
    with paused_datapipe(db) as conn:
        empty_graph_tables(conn)
        pipe = Datapipe(settings, db, analysis=hook, connect=lambda: conn, bulk_min_bytes=1)
        local_jobs.queue_files(conn, settings, FILES)
        assert pipe.tick()
        assert bulk.deferred(conn) == []
        return conn.execute(INDEXES).fetchall()


def test_the_inbound_edge_index_is_built_after_the_rules_add_their_edges(empty_graph: Database,
                                                                          tmp_path: Path) -> None:
    with empty_graph.connect_raw(autocommit=True) as conn:
        before = conn.execute(INDEXES).fetchall()
    seen: list[list[str]] = []

    def analysis(conn: psycopg.Connection) -> None:
        seen.append(bulk.deferred(conn))  # as the analysis starts: the node indexes are back, not the inbound one
        run_analysis(conn, after_rules=lambda conn: seen.append(bulk.deferred(conn)) or build_inbound_edge_index(conn))
        seen.append(bulk.deferred(conn))

    assert analysed(empty_graph, tmp_path, analysis) == before
    assert seen == [list(bulk.AFTER_RULES), list(bulk.AFTER_RULES), []]


def test_an_analysis_that_fails_leaves_no_index_missing_after_its_tick(empty_graph: Database, tmp_path: Path) -> None:
    with empty_graph.connect_raw(autocommit=True) as conn:
        before = conn.execute(INDEXES).fetchall()

    def failing(conn: psycopg.Connection) -> None:
        analyse(conn)
        raise RuntimeError("the analysis fails after its rules")

    assert analysed(empty_graph, tmp_path, failing) == before
