"""Seed operation 15, `GET /api/v2/datapipe/status`, and `PUT /api/v2/analysis`."""

from __future__ import annotations

import time
from datetime import datetime

import httpx

from houndgraph.db import Database
from tests.conftest import LiveServer
from tests.factories import account
from tests.openapi import assert_matches_spec
from tests.user.helpers import assert_error

STATUSES = {"idle", "ingesting", "analyzing", "purging", "pruning", "starting"}


def status(http: httpx.Client) -> dict:
    response = http.get("/api/v2/datapipe/status")
    assert response.status_code == 200, response.text
    return response.json()["data"]


def test_status_has_the_reference_shape(admin: httpx.Client) -> None:
    response = admin.get("/api/v2/datapipe/status")
    assert_matches_spec(response, "/api/v2/datapipe/status")
    data = response.json()["data"]
    assert set(data) == {"status", "updated_at", "last_complete_analysis_at", "last_analysis_run_at"}
    assert data["status"] in STATUSES
    for key in ("updated_at", "last_complete_analysis_at", "last_analysis_run_at"):
        datetime.fromisoformat(data[key].replace("Z", "+00:00"))


def test_status_needs_authentication_only(live_server: LiveServer, database: Database) -> None:
    with httpx.Client(base_url=live_server.base_url) as anonymous:
        assert_error(anonymous.get("/api/v2/datapipe/status"), 401, "not authenticated")
    with account(live_server, database, "Upload-Only") as uploader:
        assert uploader.http.get("/api/v2/datapipe/status").status_code == 200


def test_an_analysis_request_runs_and_stamps_its_times(admin: httpx.Client) -> None:
    before = status(admin)
    response = admin.put("/api/v2/analysis")
    assert response.status_code == 202 and response.content == b""
    assert_matches_spec(response, "/api/v2/analysis")
    deadline = time.monotonic() + 30
    while (after := status(admin))["last_complete_analysis_at"] == before["last_complete_analysis_at"]:
        assert time.monotonic() < deadline, "the requested analysis did not run"
        time.sleep(0.1)
    assert after["last_analysis_run_at"] > before["last_analysis_run_at"]
    assert after["last_complete_analysis_at"] >= after["last_analysis_run_at"]
    assert after["updated_at"] >= after["last_analysis_run_at"]


def test_only_graph_writers_may_request_analysis(live_server: LiveServer, database: Database) -> None:
    with account(live_server, database, "Read-Only") as reader:
        assert_error(reader.http.put("/api/v2/analysis"), 403, "not authorized")
