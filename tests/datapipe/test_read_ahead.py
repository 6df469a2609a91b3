"""The next file is read while the last one is written: what a user sees of it stays what they saw before.

Each file is still its own transaction and fails alone; a stop, a canceled job or a clear-database request
between two files leaves nothing of the file read ahead in the graph; the completed tasks' times follow one
another."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import httpx

from houndgraph.db import Database
from houndgraph.settings import Settings
from houndgraph.worker.loop import Observer
from houndgraph.worker.task_writer import TaskProgress
from tests.datapipe.helpers import paused_datapipe, private_datapipe
from tests.file_upload.helpers import (
    TESTLAB,
    completed_tasks,
    end_job,
    graph_size,
    job,
    object_ids_by_kind,
    start_job,
    stored_counts,
    upload,
    upload_path,
    wait_for_job,
    zipped,
)

COMPLETE, CANCELED, PARTIALLY_COMPLETE = 2, 3, 8
FILES = [TESTLAB / "users.json", TESTLAB / "groups.json", TESTLAB / "computers.json"]


def queued_job(admin: httpx.Client, paths: list[Path]) -> int:
    started = start_job(admin)
    for path in paths:
        upload_path(admin, started["id"], path)
    end_job(admin, started["id"])
    return int(started["id"])


def task_states(database: Database, job_id: int) -> dict[str, tuple[str, int]]:
    with database.connect_raw() as conn:
        rows = conn.execute("SELECT file_name, state, attempts FROM ingest_tasks WHERE job_id = %s",
                            (job_id,)).fetchall()
    return {name: (state, attempts) for name, state, attempts in rows}


def kinds_in_graph(database: Database, paths: list[Path]) -> dict[str, int]:
    with database.connect_raw() as conn:
        return dict(stored_counts(conn, object_ids_by_kind(paths)))


def test_a_bad_file_between_good_ones_fails_alone_with_its_readers_message(
        admin: httpx.Client, empty_graph: Database, server_settings: Settings) -> None:
    # The groups member is read second, while the users file before it is written.
    archive = zipped({"users.json": FILES[0].read_bytes(),
                      "groups.json": b'{"meta": {"type": "groups", "version": 6}, "data": [',
                      "computers.json": FILES[2].read_bytes()})
    with paused_datapipe(empty_graph) as conn:
        started = start_job(admin)
        assert upload(admin, started["id"], archive, "application/zip", "lab.zip").status_code == 202
        end_job(admin, started["id"])
        assert private_datapipe(server_settings, empty_graph, conn, batch_size=5).tick()
    finished = wait_for_job(admin, started["id"])
    assert finished["status"] == PARTIALLY_COMPLETE, finished
    tasks = {task["file_name"]: task for task in completed_tasks(admin, started["id"])}
    assert [tasks[name]["state"] for name in ("users.json", "groups.json", "computers.json")] == \
        ["complete", "failed", "complete"]
    [error] = tasks["groups.json"]["errors"]
    assert error.startswith("not JSON"), error
    good = [FILES[0], FILES[2]]
    assert kinds_in_graph(empty_graph, good) == {kind: len(ids) for kind, ids in object_ids_by_kind(good).items()}


def test_a_stop_while_the_next_file_is_read_ahead_puts_both_back_unread(
        admin: httpx.Client, empty_graph: Database, server_settings: Settings) -> None:
    with paused_datapipe(empty_graph) as conn:
        job_id = queued_job(admin, FILES[:2])
        pipe = private_datapipe(server_settings, empty_graph, conn, batch_size=5)

        class StopAtTheLastBatchOfTheFirstFile(Observer):
            def batch_written(self, progress: TaskProgress) -> None:
                if progress.task.file_name == "users.json" and progress.stats.records >= 10:
                    pipe.stop()

        assert pipe.tick(StopAtTheLastBatchOfTheFirstFile())
        assert task_states(empty_graph, job_id) == {"users.json": ("pending", 0), "groups.json": ("pending", 0)}
        with empty_graph.connect_raw() as check:
            assert graph_size(check) == (0, 0)
    finished = wait_for_job(admin, job_id)
    assert finished["status"] == COMPLETE, finished
    assert task_states(empty_graph, job_id) == {"users.json": ("complete", 1), "groups.json": ("complete", 1)}


def test_a_clear_database_between_files_is_carried_out_before_the_next_file(
        admin: httpx.Client, empty_graph: Database, server_settings: Settings) -> None:
    with paused_datapipe(empty_graph) as conn:
        job_id = queued_job(admin, FILES)
        pipe = private_datapipe(server_settings, empty_graph, conn, batch_size=5)

        class ClearDuringTheFirstFile(Observer):
            asked = False

            def batch_written(self, progress: TaskProgress) -> None:
                if not self.asked:
                    self.asked = True
                    response = admin.post("/api/v2/clear-database", json={"deleteCollectedGraphData": True})
                    assert response.status_code == 204, response.text

        assert pipe.tick(ClearDuringTheFirstFile())
        # The first file is committed; the next one, read ahead meanwhile, waits for the purge.
        assert task_states(empty_graph, job_id) == {"users.json": ("complete", 1), "groups.json": ("pending", 0),
                                                    "computers.json": ("pending", 0)}
        assert pipe.tick()
    assert job(admin, job_id)["status"] == CANCELED
    assert task_states(empty_graph, job_id) == {"users.json": ("complete", 1), "groups.json": ("canceled", 0),
                                                "computers.json": ("canceled", 0)}
    with empty_graph.connect_raw() as check:
        assert graph_size(check) == (0, 0)


def test_a_job_canceled_while_a_file_is_written_gets_no_further_file(
        admin: httpx.Client, empty_graph: Database, server_settings: Settings) -> None:
    with paused_datapipe(empty_graph) as conn:
        job_id = queued_job(admin, FILES[:2])
        pipe = private_datapipe(server_settings, empty_graph, conn, batch_size=5)

        class CancelDuringTheFirstFile(Observer):
            def batch_written(self, progress: TaskProgress) -> None:
                # What the client jobs' scheduler does to the upload of a collection it gives up on.
                with empty_graph.connect_raw(autocommit=True) as other:
                    other.execute("UPDATE ingest_jobs SET status = %s WHERE id = %s", (CANCELED, job_id))

        assert pipe.tick(CancelDuringTheFirstFile())
    assert task_states(empty_graph, job_id) == {"users.json": ("complete", 1), "groups.json": ("pending", 0)}
    group_ids = list(object_ids_by_kind([FILES[1]])["Group"])
    with empty_graph.connect_raw() as check:
        described = check.execute("SELECT count(*) FROM node WHERE properties ->> 'objectid' = ANY(%s) "
                                  "AND properties ? 'whencreated'", (group_ids,)).fetchone()
    assert described == (0,), "no record of the groups file was written (the users file only names groups)"


def test_completed_tasks_times_follow_one_another_in_reading_order(admin: httpx.Client, empty_graph: Database,
                                                                   server_settings: Settings) -> None:
    with paused_datapipe(empty_graph) as conn:
        job_id = queued_job(admin, FILES[::-1])
        assert private_datapipe(server_settings, empty_graph, conn, batch_size=5).tick()
    finished = wait_for_job(admin, job_id)
    tasks = sorted(completed_tasks(admin, job_id), key=lambda task: task["start_time"])
    assert [task["file_name"] for task in tasks] == ["users.json", "groups.json", "computers.json"]
    times = [(datetime.fromisoformat(task["start_time"]), datetime.fromisoformat(task["end_time"])) for task in tasks]
    assert all(start < end for start, end in times)
    assert all(times[index][1] <= times[index + 1][0] for index in range(len(times) - 1)), times
    assert datetime.fromisoformat(finished["start_time"]) <= times[0][0]
