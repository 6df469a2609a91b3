"""GET and DELETE /api/v2/analysis: the pending analysis request, and cancelling it."""

from __future__ import annotations

import time

import httpx

from houndgraph.db import Database
from tests.datapipe.helpers import paused_datapipe
from tests.user.helpers import assert_error


def test_a_pending_analysis_request_is_shown_and_can_be_cancelled(admin: httpx.Client, database: Database) -> None:
    with paused_datapipe(database):
        assert admin.put("/api/v2/analysis").status_code == 202
        pending = admin.get("/api/v2/analysis")
        assert pending.status_code == 200 and pending.json()["data"]["request_type"] == "analysis"
        cancelled = admin.delete("/api/v2/analysis")
        assert cancelled.status_code == 202 and cancelled.content == b""
        assert admin.get("/api/v2/analysis").json()["data"] == {
            "requested_by": "", "request_type": "", "requested_at": "0001-01-01T00:00:00Z"}
        assert_error(admin.delete("/api/v2/analysis"), 404)


def test_a_pending_deletion_cannot_be_cancelled(admin: httpx.Client, database: Database) -> None:
    with paused_datapipe(database):
        queued = admin.post("/api/v2/clear-database", json={"deleteAssetGroupSelectors": [0],
                                                            "deleteDataQualityHistory": True})
        assert queued.status_code == 204, queued.text
        me = admin.get("/api/v2/self").json()["data"]["id"]
        pending = admin.get("/api/v2/analysis").json()["data"]
        assert pending["request_type"] == "deletion" and pending["requested_by"] == me
        assert_error(admin.delete("/api/v2/analysis"), 409)
    # Served once the datapipe runs again; a test after this one must not find the deletion still waiting (it did:
    # the next test paused the datapipe before its tick and saw "deletion" where it had asked for an analysis).
    deadline = time.monotonic() + 60
    while admin.get("/api/v2/analysis").json()["data"]["request_type"]:
        assert time.monotonic() < deadline, "the deletion was not served"
        time.sleep(0.1)


def test_the_pending_request_is_also_served_where_the_reference_route_table_puts_it(admin: httpx.Client,
                                                                                    database: Database) -> None:
    with paused_datapipe(database):
        assert admin.put("/api/v2/analysis").status_code == 202
        status = admin.get("/api/v2/analysis/status")
        assert status.status_code == 200, status.text
        assert status.json()["data"] == admin.get("/api/v2/analysis").json()["data"]
        assert status.json()["data"]["request_type"] == "analysis"
        assert admin.delete("/api/v2/analysis").status_code == 202
