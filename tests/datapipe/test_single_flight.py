"""One datapipe at a time in a cluster; an interrupted file is read again, or given up on."""

from __future__ import annotations

import time

import httpx

from houndgraph.db import Database
from houndgraph.settings import Settings
from houndgraph.worker.loop import Datapipe, Observer
from houndgraph.worker.task_writer import TaskProgress
from tests.datapipe.helpers import paused_datapipe, private_datapipe
from tests.file_upload.helpers import (
    TESTLAB,
    completed_tasks,
    end_job,
    graph_size,
    job,
    start_job,
    upload_path,
    wait_for_job,
)

INGESTING, FAILED, COMPLETE = 6, 5, 2


def task_rows(database: Database, job_id: int) -> list[tuple[str, int]]:
    with database.connect_raw() as conn:
        return conn.execute("SELECT state, attempts FROM ingest_tasks WHERE job_id = %s ORDER BY id",
                            (job_id,)).fetchall()


def test_a_second_datapipe_skips_its_tick_while_one_runs(database: Database, server_settings: Settings) -> None:
    other = Datapipe(server_settings, database)
    try:
        with paused_datapipe(database):
            assert other.tick() is False
        deadline = time.monotonic() + 30
        while not other.tick():  # the service's own loop may be in a tick right now
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        other.stop()


def test_a_stop_during_ingest_puts_the_file_back_unread(admin: httpx.Client, empty_graph: Database,
                                                        server_settings: Settings) -> None:
    with paused_datapipe(empty_graph) as conn:
        started = start_job(admin)
        upload_path(admin, started["id"], TESTLAB / "groups.json")
        end_job(admin, started["id"])
        pipe = private_datapipe(server_settings, empty_graph, conn, batch_size=25)

        class StopAfterOneBatch(Observer):
            def batch_written(self, progress: TaskProgress) -> None:
                pipe.stop()  # what the service does at shutdown

        assert pipe.tick(StopAfterOneBatch())
        assert task_rows(empty_graph, started["id"]) == [("pending", 0)], "a clean stop is not the file's fault"
        with empty_graph.connect_raw() as check:
            assert graph_size(check) == (0, 0), "the batches written before the stop were rolled back"
        assert job(admin, started["id"])["status"] == INGESTING
    finished = wait_for_job(admin, started["id"])
    assert finished["status"] == COMPLETE
    assert task_rows(empty_graph, started["id"]) == [("complete", 1)]


def test_a_file_interrupted_three_times_is_given_up(admin: httpx.Client, database: Database,
                                                    server_settings: Settings) -> None:
    with paused_datapipe(database) as conn:
        started = start_job(admin)
        upload_path(admin, started["id"], TESTLAB / "gpos.json")
        end_job(admin, started["id"])
        # What three crashes in the middle of this file leave behind.
        conn.execute("UPDATE ingest_tasks SET state = 'running', attempts = 3 WHERE job_id = %s", (started["id"],))
        assert private_datapipe(server_settings, database, conn).tick()
    finished = job(admin, started["id"])
    assert finished["status"] == FAILED
    [task] = completed_tasks(admin, started["id"])
    assert task["errors"] == ["ingest of this file was interrupted 3 times (the service stopped while reading "
                              "it): given up"]
    copies = server_settings.uploads_dir.resolve() / str(started["id"])
    assert not copies.exists() or not any(copies.iterdir())
    with database.connect_raw() as check:
        assert check.execute("SELECT count(*) FROM upload_chunks WHERE upload_id IN (SELECT upload_id "
                             "FROM ingest_tasks WHERE job_id = %s)", (started["id"],)).fetchone() == (0,), \
            "the given-up upload is not kept"
