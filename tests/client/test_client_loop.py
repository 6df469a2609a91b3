"""A simulated SharpHound client through the whole loop, over HTTP: created, token issued, check-in, a
schedule due now, job fetched, started, the testlab files uploaded into it, ended, ingested, analysed."""

from __future__ import annotations

import json

import httpx

from houndgraph.db import Database
from tests.client.helpers import as_client, create_client, due_soon, error_message, wait_for
from tests.conftest import LiveServer
from tests.file_upload.helpers import TESTLAB
from tests.openapi import assert_matches_spec

COMPLETE, RUNNING, INGESTING, READY = 2, 1, 6, 0


def _domain_objects(file_name: str) -> int:
    document = json.loads((TESTLAB / file_name).read_text(encoding="utf-8-sig"))
    return sum(1 for item in document["data"] if item["Properties"].get("domain") == "TESTLAB.LOCAL")


def test_a_sharphound_client_runs_a_scheduled_collection_end_to_end(admin: httpx.Client, empty_graph: Database,
                                                                     live_server: LiveServer) -> None:
    created = create_client(admin)
    collector = as_client(live_server.base_url, created)
    checked_in = collector.put("/api/v2/clients/update", json={"address": "10.0.0.9", "hostname": "sh01",
                                                              "username": "svc", "version": "2.5.7"})
    assert_matches_spec(checked_in, "/api/v2/clients/update", "put")

    # Due a few seconds ahead: a first run already past when the server reads the rule is scheduled a day later.
    event = admin.post("/api/v2/events", json={
        "client_id": created["id"], "rrule": due_soon(5), "session_collection": True, "local_group_collection": True,
        "ad_structure_collection": True, "all_trusted_domains": True}).json()["data"]

    def available() -> list[dict]:
        response = collector.get("/api/v2/jobs/available")
        assert_matches_spec(response, "/api/v2/jobs/available", "get")
        return response.json()["data"]

    (job,) = wait_for(available, what="the scheduled job")
    assert (job["status"], job["event_id"], job["client_name"]) == (READY, event["id"],
                                                                    created["name"])
    assert job["all_trusted_domains"] and job["session_collection"] and job["domain_controller"] == \
        "dc01.testlab.local"

    started = collector.post("/api/v2/jobs/start", json={"id": job["id"]})
    assert_matches_spec(started, "/api/v2/jobs/start", "post")
    assert started.json()["data"]["status"] == RUNNING
    assert error_message(collector.post("/api/v2/jobs/start", json={"id": job["id"]}), 400) == \
        f"job {job['id']} is not ready to start"
    assert collector.get("/api/v2/jobs/current").json()["data"]["id"] == job["id"]
    shown = admin.get(f"/api/v2/clients/{created['id']}")
    assert_matches_spec(shown, "/api/v2/clients/{client_id}", "get")
    assert shown.json()["data"]["current_job"]["id"] == job["id"]

    for path in sorted(TESTLAB.glob("*.json")):
        response = collector.post("/api/v2/ingest", content=path.read_bytes(),
                                  headers={"Content-Type": "application/json", "X-File-Upload-Name": path.name})
        assert response.status_code == 202, response.text
    assert collector.post("/api/v2/clients/error", json={
        "task_error": "session enumeration failed", "additional": {"computer": "WS01"}}).status_code == 202
    ended = collector.post("/api/v2/jobs/end", json={"status": "complete", "message": "collection done"})
    assert_matches_spec(ended, "/api/v2/jobs/end", "post")
    assert ended.json()["data"]["status"] == INGESTING
    assert collector.get("/api/v2/jobs/current").status_code == 404

    def finished() -> dict | None:
        response = admin.get(f"/api/v2/jobs/{job['id']}")
        assert_matches_spec(response, "/api/v2/jobs/{job_id}", "get")
        data = response.json()["data"]
        return data if data["status"] == COMPLETE else None

    done = wait_for(finished, timeout=180, what="the job to be ingested and analysed")
    (result,) = done["domain_results"]
    assert result["domain_name"] == "TESTLAB.LOCAL" and result["success"] is True
    assert result["user_count"] == _domain_objects("users.json") > 0
    assert result["computer_count"] == _domain_objects("computers.json") > 0
    assert result["gpo_count"] == _domain_objects("gpos.json") > 0
    assert result["ou_count"] == _domain_objects("ous.json") > 0
    assert done["end_time"] >= done["start_time"] >= done["execution_time"][:19]

    # Analysed: the datapipe finished an analysis after the job's files were read.
    status = admin.get("/api/v2/datapipe/status").json()["data"]
    assert status["last_complete_analysis_at"] >= done["end_time"][:19]
    log = admin.get(f"/api/v2/jobs/{job['id']}/log")
    assert_matches_spec(log, "/api/v2/jobs/{job_id}/log", "get")
    assert "session enumeration failed computer=WS01" in log.json()["data"]["log"]

    client_now = admin.get(f"/api/v2/clients/{created['id']}").json()["data"]
    assert client_now["completed_job_count"] == 1 and client_now["current_job_id"] is None
    assert client_now["last_checkin"] > created["created_at"][:19]
    completed = admin.get(f"/api/v2/clients/{created['id']}/completed-jobs")
    assert_matches_spec(completed, "/api/v2/clients/{client_id}/completed-jobs", "get")
    assert [j["id"] for j in completed.json()["data"]] == [job["id"]]
    finished_jobs = admin.get("/api/v2/jobs/finished", params={"client_id": f"eq:{created['id']}",
                                                               "status": "eq:complete"})
    assert_matches_spec(finished_jobs, "/api/v2/jobs/finished", "get")
    assert finished_jobs.json()["count"] == 1
    # The next occurrence of the daily rule is tomorrow: no second job now.
    next_at = admin.get(f"/api/v2/events/{event['id']}").json()["data"]["next_scheduled_at"]
    assert next_at > done["execution_time"][:19]
    assert collector.get("/api/v2/jobs/available").json()["data"] == []
    collector.close()
