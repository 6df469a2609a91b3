"""Job status over a job's life (reference/behaviour.md §4, §18), seen through the API."""

from __future__ import annotations

import json
import time

import httpx
import psycopg

from houndgraph.db import Database
from houndgraph.settings import Settings
from tests.datapipe.helpers import paused_datapipe, private_datapipe
from tests.file_upload.helpers import (
    TESTLAB,
    completed_tasks,
    end_job,
    job,
    object_ids_by_kind,
    start_job,
    stored_counts,
    upload,
    upload_path,
    wait_for_job,
    zipped,
)
from tests.user.helpers import assert_error

RUNNING, COMPLETE, TIMED_OUT, FAILED, INGESTING, ANALYZING, PARTIALLY_COMPLETE = 1, 2, 4, 5, 6, 7, 8


def test_a_bad_member_fails_alone_and_the_job_is_partially_complete(admin: httpx.Client,
                                                                     empty_graph: Database) -> None:
    archive = zipped({"users.json": (TESTLAB / "users.json").read_bytes(), "bad.json": b'{"foo": 1}',
                      "broken.json": b'{"meta": {"type": "groups", "version": 6}, "data": [',
                      "ous.json": (TESTLAB / "ous.json").read_bytes()})
    started = start_job(admin)
    assert upload(admin, started["id"], archive, "application/zip", "lab.zip").status_code == 202
    end_job(admin, started["id"])
    finished = wait_for_job(admin, started["id"])

    assert finished["status"] == PARTIALLY_COMPLETE, finished
    assert finished["status_message"] == "2 of 4 files failed to ingest"
    assert (finished["total_files"], finished["completed_files"], finished["failed_files"]) == (4, 2, 2)
    tasks = {task["file_name"]: task for task in completed_tasks(admin, started["id"])}
    assert tasks["bad.json"]["state"] == "failed"
    assert tasks["bad.json"]["errors"] == ["no valid meta tag or data tag found"]
    assert tasks["broken.json"]["errors"][0].startswith("not JSON")
    assert tasks["users.json"]["state"] == tasks["ous.json"]["state"] == "complete"
    assert all(task["parent_file_name"] == "lab.zip" for task in tasks.values())
    expected = object_ids_by_kind([TESTLAB / "users.json", TESTLAB / "ous.json"])
    with empty_graph.connect_raw() as conn:
        assert stored_counts(conn, expected) == {kind: len(ids) for kind, ids in expected.items()}
    assert tasks["bad.json"]["nodes_written"] == tasks["broken.json"]["nodes_written"] == 0
    assert finished["nodes_written"] == tasks["users.json"]["nodes_written"] + tasks["ous.json"]["nodes_written"]


def test_a_job_whose_every_file_fails_is_failed(admin: httpx.Client) -> None:
    started = start_job(admin)
    archive = zipped({"a.json": b"{}", "b.json": b'{"data": []}'})
    assert upload(admin, started["id"], archive, "application/zip").status_code == 202
    end_job(admin, started["id"])
    finished = wait_for_job(admin, started["id"])
    assert finished["status"] == FAILED
    assert finished["status_message"] == "all 2 files failed to ingest"
    errors = {task["file_name"]: task["errors"] for task in completed_tasks(admin, started["id"])}
    assert errors == {"a.json": ["no valid meta tag or data tag found"], "b.json": ["no valid meta tag found"]}


def test_status_goes_running_ingesting_analyzing_complete(admin: httpx.Client, database: Database,
                                                          server_settings: Settings) -> None:
    seen_during_analysis: list[tuple[int, str]] = []
    with paused_datapipe(database) as conn:
        started = start_job(admin)
        upload_path(admin, started["id"], TESTLAB / "gpos.json")
        assert job(admin, started["id"])["status"] == RUNNING
        end_job(admin, started["id"])
        assert job(admin, started["id"])["status"] == INGESTING
        before = admin.get("/api/v2/datapipe/status").json()["data"]

        def analysis(analysis_conn: psycopg.Connection) -> None:
            seen_during_analysis.append((job(admin, started["id"])["status"],
                                         admin.get("/api/v2/datapipe/status").json()["data"]["status"]))

        assert private_datapipe(server_settings, database, conn, analysis).tick()
    assert seen_during_analysis == [(ANALYZING, "analyzing")]
    finished = job(admin, started["id"])
    assert finished["status"] == COMPLETE and finished["completed_files"] == 1
    after = admin.get("/api/v2/datapipe/status").json()["data"]
    assert after["status"] == "idle"
    assert after["last_analysis_run_at"] > before["last_analysis_run_at"]
    assert after["last_complete_analysis_at"] >= after["last_analysis_run_at"]


def test_a_failed_analysis_fails_the_job_and_keeps_the_last_complete_time(
        admin: httpx.Client, database: Database, server_settings: Settings) -> None:
    def analysis(analysis_conn: psycopg.Connection) -> None:
        raise RuntimeError("rule exploded")

    with paused_datapipe(database) as conn:
        started = start_job(admin)
        upload_path(admin, started["id"], TESTLAB / "ous.json")
        end_job(admin, started["id"])
        before = admin.get("/api/v2/datapipe/status").json()["data"]
        assert private_datapipe(server_settings, database, conn, analysis).tick()
    finished = job(admin, started["id"])
    assert finished["status"] == FAILED
    assert finished["status_message"] == "analysis failed: RuntimeError: rule exploded"
    after = admin.get("/api/v2/datapipe/status").json()["data"]
    assert after["last_complete_analysis_at"] == before["last_complete_analysis_at"]
    assert after["last_analysis_run_at"] > before["last_analysis_run_at"]


def test_an_idle_running_job_times_out_and_keeps_what_it_sent(admin: httpx.Client, database: Database,
                                                              server_settings: Settings) -> None:
    started = start_job(admin)
    upload_path(admin, started["id"], TESTLAB / "domains.json")
    time.sleep(1.2)
    with paused_datapipe(database) as conn:
        assert private_datapipe(server_settings, database, conn, upload_idle_timeout=1.0).tick()
    timed_out = job(admin, started["id"])
    assert timed_out["status"] == TIMED_OUT
    assert "timed out" in timed_out["status_message"]
    assert timed_out["completed_files"] == 1, "a file accepted before the time-out is still ingested"
    assert_error(upload(admin, started["id"], (TESTLAB / "ous.json").read_bytes()), 400,
                 "job must be in running status to attach files")
    assert_error(admin.post(f"/api/v2/file-upload/{started['id']}/end"), 400, "job must be in running status to end")


def test_a_job_with_recent_uploads_does_not_time_out(admin: httpx.Client, database: Database,
                                                     server_settings: Settings) -> None:
    started = start_job(admin)
    with paused_datapipe(database) as conn:
        assert private_datapipe(server_settings, database, conn, upload_idle_timeout=30.0).tick()
    assert job(admin, started["id"])["status"] == RUNNING
    end_job(admin, started["id"])


def test_listing_filters_sorts_and_pages(admin: httpx.Client) -> None:
    ids = [start_job(admin)["id"] for _ in range(3)]
    end_job(admin, ids[0])
    wait_for_job(admin, ids[0])
    newest_first = admin.get("/api/v2/file-upload", params={"sort_by": "-id", "id": f"gte:{ids[0]}"}).json()
    assert [item["id"] for item in newest_first["data"]][-3:] == ids[::-1]
    assert newest_first["count"] >= 3 and newest_first["limit"] == 100 and newest_first["skip"] == 0
    running = admin.get("/api/v2/file-upload", params=[("status", "eq:1"), ("id", f"gt:{ids[0]}"),
                                                       ("id", f"lte:{ids[2]}")]).json()
    assert [item["id"] for item in running["data"]] == ids[1:]
    complete = admin.get("/api/v2/file-upload", params={"status": "eq:2", "id": f"eq:{ids[0]}"}).json()
    assert [item["id"] for item in complete["data"]] == ids[:1]
    page = admin.get("/api/v2/file-upload", params={"sort_by": "id", "id": f"gte:{ids[0]}", "skip": 1,
                                                    "limit": 1}).json()
    assert page["data"][0]["id"] == ids[1] and page["limit"] == 1 and page["skip"] == 1
    mine = admin.get("/api/v2/file-upload", params={"user_email_address": "~eq:", "id": f"eq:{ids[1]}"})
    assert mine.status_code == 200
    assert_error(admin.get("/api/v2/file-upload", params={"sort_by": "nope"}), 400,
                 "column format does not support sorting: nope")
    assert_error(admin.get("/api/v2/file-upload", params={"nope": "eq:1"}), 400,
                 "the specified column cannot be filtered: nope")
    assert_error(admin.get("/api/v2/file-upload", params={"status": "~eq:1"}), 400,
                 "the specified filter predicate is not supported for this column: status ~eq")
    assert_error(admin.get("/api/v2/file-upload", params={"status": "eq:x"}), 400,
                 "there are errors in the query parameter filters specified")
    assert_error(admin.get("/api/v2/file-upload", params={"id": "eq:99999999999999999999"}), 400,
                 "there are errors in the query parameter filters specified")
    for job_id in ids[1:]:
        end_job(admin, job_id)


def test_completed_tasks_list_only_finished_tasks(admin: httpx.Client, database: Database) -> None:
    with paused_datapipe(database):
        started = start_job(admin)
        upload_path(admin, started["id"], TESTLAB / "containers.json")
        assert completed_tasks(admin, started["id"]) == []
    end_job(admin, started["id"])
    wait_for_job(admin, started["id"])
    [task] = completed_tasks(admin, started["id"])
    assert task["file_name"] == "containers.json" and task["state"] == "complete"
    assert task["nodes_written"] >= len(json.loads((TESTLAB / "containers.json").read_text())["data"])


def test_a_value_too_long_for_the_indexes_fails_its_file_alone_naming_why(admin: httpx.Client,
                                                                          empty_graph: Database) -> None:
    # A name or id of 2.7 KB to 4 MiB was read, written and then refused by a B-tree index at the end of the
    # file's transaction, an error reported as an interrupted service. Now the reader refuses it, in every format.
    long_name = "N" * 3000
    users = json.loads((TESTLAB / "users.json").read_bytes())
    users["data"][0]["Properties"]["name"] = long_name
    opengraph = {"graph": {"nodes": [{"id": "OG-" + "I" * 3000, "kinds": ["Widget"], "properties": {}}],
                           "edges": []}}
    archive = zipped({"users.json": json.dumps(users).encode(), "opengraph.json": json.dumps(opengraph).encode(),
                      "ous.json": (TESTLAB / "ous.json").read_bytes()})
    started = start_job(admin)
    assert upload(admin, started["id"], archive, "application/zip", "lab.zip").status_code == 202
    end_job(admin, started["id"])
    finished = wait_for_job(admin, started["id"])

    assert finished["status"] == PARTIALLY_COMPLETE, finished
    assert finished["status_message"] == "2 of 3 files failed to ingest"
    tasks = {task["file_name"]: task for task in completed_tasks(admin, started["id"])}
    assert tasks["users.json"]["state"] == tasks["opengraph.json"]["state"] == "failed"
    assert tasks["users.json"]["errors"] == [
        f"the file holds a name of 3000 bytes (it begins {'N' * 40!r}); object ids, names and kinds may be at "
        "most 2048 bytes"]
    assert tasks["opengraph.json"]["errors"] == [
        f"the file holds an object id of 3003 bytes (it begins {'OG-' + 'I' * 37!r}); object ids, names and kinds "
        "may be at most 2048 bytes"]
    assert tasks["ous.json"]["state"] == "complete"
    assert tasks["users.json"]["nodes_written"] == tasks["opengraph.json"]["nodes_written"] == 0
    with empty_graph.connect_raw() as conn:
        assert conn.execute("SELECT count(*) FROM node WHERE length(properties->>'name') > 2048").fetchone() == (0,)
