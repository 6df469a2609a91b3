"""Jobs outside the happy path: ad hoc, canceled while running, failed by the client, timed out."""

from __future__ import annotations

import time

import httpx

from houndgraph.client_job import scheduler
from houndgraph.db import Database
from tests.client.helpers import SESSIONS_ONLY, as_client, create_client, error_message
from tests.conftest import LiveServer
from tests.file_upload.helpers import TESTLAB
from tests.openapi import assert_matches_spec

READY, RUNNING, CANCELED, TIMED_OUT, FAILED = 0, 1, 3, 4, 5


def _ad_hoc_job(admin: httpx.Client, client_id: str, path: str = "jobs") -> dict:
    response = admin.post(f"/api/v2/clients/{client_id}/{path}", json=SESSIONS_ONLY)
    assert_matches_spec(response, f"/api/v2/clients/{{client_id}}/{path}", "post")
    return response.json()["data"]


def test_cancelling_a_running_job_stops_its_uploads(admin: httpx.Client, live_server: LiveServer) -> None:
    created = create_client(admin)
    job = _ad_hoc_job(admin, created["id"])
    with as_client(live_server.base_url, created) as collector:
        assert [j["id"] for j in collector.get("/api/v2/jobs/available").json()["data"]] == [job["id"]]
        assert collector.post("/api/v2/jobs/start", json={"id": job["id"]}).status_code == 200
        upload = {"content": (TESTLAB / "users.json").read_bytes(), "headers": {"Content-Type": "application/json"}}
        assert collector.post("/api/v2/ingest", **upload).status_code == 202

        response = admin.put(f"/api/v2/jobs/{job['id']}/cancel")
        assert_matches_spec(response, "/api/v2/jobs/{job_id}/cancel", "put")
        assert response.json()["data"]["status"] == CANCELED
        assert error_message(collector.get("/api/v2/jobs/current"), 404) == "no job is running on this client"
        assert error_message(collector.post("/api/v2/ingest", **upload), 404) == "no job is running on this client"
        assert error_message(collector.post("/api/v2/jobs/end", json={"status": "complete"}), 404) == \
            "no job is running on this client"
    assert error_message(admin.put(f"/api/v2/jobs/{job['id']}/cancel"), 400) == \
        "only a ready or running job can be canceled"
    shown = admin.get(f"/api/v2/jobs/{job['id']}").json()["data"]
    assert (shown["status"], shown["status_message"]) == (CANCELED, "canceled by a user")
    assert admin.get(f"/api/v2/clients/{created['id']}").json()["data"]["current_job_id"] is None


def test_a_client_ends_a_job_as_complete_or_failed_only(admin: httpx.Client, live_server: LiveServer) -> None:
    created = create_client(admin)
    job = _ad_hoc_job(admin, created["id"], "tasks")
    with as_client(live_server.base_url, created) as collector:
        collector.post("/api/v2/jobs/start", json={"id": job["id"]})
        for status in ("canceled", 4, "sometimes", 2.5):
            message = error_message(collector.post("/api/v2/jobs/end", json={"status": status}), 400)
            assert message == "invalid status" or message.startswith("error unmarshalling JSON payload")
        ended = collector.post("/api/v2/jobs/end", json={"status": "FAILED", "message": "DC unreachable"})
        assert ended.json()["data"]["status"] == FAILED
    shown = admin.get(f"/api/v2/jobs/{job['id']}").json()["data"]
    assert (shown["status"], shown["status_message"]) == (FAILED, "DC unreachable")
    listed = admin.get("/api/v2/jobs", params={"client_id": f"eq:{created['id']}", "status": "eq:failed"})
    assert_matches_spec(listed, "/api/v2/jobs", "get")
    assert [j["id"] for j in listed.json()["data"]] == [job["id"]]
    # No job here has a log file path or an event title (the reference's fields): such filters match accordingly.
    assert admin.get("/api/v2/jobs", params={"client_id": f"eq:{created['id']}", "log_path": "eq:x"}).json()[
        "data"] == []
    assert len(admin.get("/api/v2/jobs", params={"client_id": f"eq:{created['id']}", "event_title": "~eq:"})
               .json()["data"]) == 1
    assert error_message(admin.get("/api/v2/jobs", params={"status": "eq:later"}), 400) == \
        "there are errors in the query parameter filters specified"


def test_a_job_never_started_or_never_ended_times_out(admin: httpx.Client, database: Database,
                                                       live_server: LiveServer) -> None:
    created = create_client(admin)
    unstarted = _ad_hoc_job(admin, created["id"])
    running = _ad_hoc_job(admin, created["id"])
    with as_client(live_server.base_url, created) as collector:
        assert collector.post("/api/v2/jobs/start", json={"id": running["id"]}).status_code == 200
        time.sleep(1.1)
        with database.connect_raw(autocommit=True) as conn:
            deadline = time.monotonic() + 30
            while not scheduler.run(conn, job_timeout=1):  # the service's own pass may hold the lock now
                assert time.monotonic() < deadline
                time.sleep(0.05)
        assert collector.get("/api/v2/jobs/current").status_code == 404
    for job in (unstarted, running):
        shown = admin.get(f"/api/v2/jobs/{job['id']}").json()["data"]
        assert shown["status"] == TIMED_OUT, shown
    assert "did not start" in admin.get(f"/api/v2/jobs/{unstarted['id']}").json()["data"]["status_message"]
