"""The whole path a user takes: start a job, upload collector files, end it, watch it complete, see the graph."""

from __future__ import annotations

from collections import Counter

import httpx

from houndgraph.db import Database
from tests.factories import user_with_role
from tests.file_upload.helpers import (
    ADCS_ZIP,
    TESTLAB,
    completed_tasks,
    end_job,
    graph_size,
    ingest_paths,
    job,
    object_ids_by_kind,
    start_job,
    stored_counts,
    upload_path,
    wait_for_job,
)
from tests.openapi import assert_matches_spec


def test_adcs_zip_reaches_complete_and_every_object_is_a_node(admin: httpx.Client, empty_graph: Database) -> None:
    started = start_job(admin)
    assert started["status"] == 1
    upload_path(admin, started["id"], ADCS_ZIP)
    end_job(admin, started["id"])
    finished = wait_for_job(admin, started["id"])

    assert finished["status"] == 2, finished
    assert finished["total_files"] == 13 and finished["failed_files"] == 0 and finished["completed_files"] == 13
    assert finished["end_time"] >= finished["start_time"]
    expected = object_ids_by_kind([ADCS_ZIP])
    with empty_graph.connect_raw() as conn:
        assert stored_counts(conn, expected) == Counter({kind: len(ids) for kind, ids in expected.items()})
        nodes, edges = graph_size(conn)
    assert finished["nodes_written"] >= sum(len(ids) for ids in expected.values())
    assert nodes > 0 and edges > 0 and finished["edges_written"] > 0

    tasks = completed_tasks(admin, started["id"])
    assert sorted(t["file_name"] for t in tasks) == sorted(
        ["aiacas.json", "certtemplates.json", "computers.json", "containers.json", "domains.json",
         "enterprisecas.json", "gpos.json", "groups.json", "ntauthstores.json", "ous.json", "rootcas.json",
         "users.json", "issuancepolicies.json"])
    assert {t["parent_file_name"] for t in tasks} == {"adcs.zip"}
    assert all(t["errors"] == [] and t["state"] == "complete" for t in tasks)


def test_testlab_json_files_ingest_one_task_each(admin: httpx.Client, empty_graph: Database) -> None:
    paths = sorted(TESTLAB.glob("*.json"))
    finished = ingest_paths(admin, paths)
    assert finished["status"] == 2, finished
    assert finished["total_files"] == len(paths)
    expected = object_ids_by_kind(paths)
    with empty_graph.connect_raw() as conn:
        assert stored_counts(conn, expected) == Counter({kind: len(ids) for kind, ids in expected.items()})
    tasks = completed_tasks(admin, finished["id"])
    assert sorted(t["file_name"] for t in tasks) == [p.name for p in paths]
    assert all(t["parent_file_name"] == "" for t in tasks)


def test_uploading_the_same_files_twice_changes_nothing(admin: httpx.Client, empty_graph: Database) -> None:
    ingest_paths(admin, [ADCS_ZIP])
    with empty_graph.connect_raw() as conn:
        first = graph_size(conn)
    ingest_paths(admin, [ADCS_ZIP])
    with empty_graph.connect_raw() as conn:
        assert graph_size(conn) == first


def test_job_moves_running_then_ingesting_and_answers_match_the_spec(admin: httpx.Client,
                                                                       empty_graph: Database) -> None:
    response = admin.post("/api/v2/file-upload/start")
    assert_matches_spec(response, "/api/v2/file-upload/start")
    job_id = response.json()["data"]["id"]
    assert job(admin, job_id)["status"] == 1
    upload_path(admin, job_id, TESTLAB / "users.json")
    # Files are ingested as they arrive; the job itself waits for its end before analysis.
    assert job(admin, job_id)["status"] == 1
    end_job(admin, job_id)
    assert job(admin, job_id)["status"] in (6, 7, 2)
    assert wait_for_job(admin, job_id)["status"] == 2

    listed = admin.get("/api/v2/file-upload", params={"id": f"eq:{job_id}"})
    assert_matches_spec(listed, "/api/v2/file-upload")
    tasks = admin.get(f"/api/v2/file-upload/{job_id}/completed-tasks")
    assert_matches_spec(tasks, "/api/v2/file-upload/{file_upload_job_id}/completed-tasks")
    types = admin.get("/api/v2/file-upload/accepted-types")
    assert_matches_spec(types, "/api/v2/file-upload/accepted-types")
    assert types.json()["data"] == ["application/json", "application/zip", "application/x-zip-compressed",
                                    "application/zip-compressed"]


def test_ending_a_job_without_files_completes_it(admin: httpx.Client) -> None:
    started = start_job(admin)
    end_job(admin, started["id"])
    finished = wait_for_job(admin, started["id"])
    assert finished["status"] == 2
    assert finished["total_files"] == 0


def test_the_legacy_one_shot_ingest(admin: httpx.Client) -> None:
    """POST /api/v2/ingest: one file, a job of its own that is ended at once and ingested by the datapipe."""
    uploader, headers = user_with_role(admin, "Power User")
    body = (TESTLAB / "domains.json").read_bytes()
    response = admin.post("/api/v2/ingest", content=body, headers={**headers, "Content-Type": "application/json"})
    assert response.status_code == 202, response.text
    [mine] = admin.get("/api/v2/file-upload", params={"user_id": f"eq:{uploader['id']}"}).json()["data"]
    finished = wait_for_job(admin, mine["id"])
    assert finished["status"] == 2 and finished["total_files"] == 1, finished
