"""Operations (issue #11): the health check for load balancers, Prometheus metrics by route template, and
one JSON log line per request."""

from __future__ import annotations

import json
import logging
import time

import httpx

from houndgraph.db import Database
from houndgraph.settings import Settings
from tests.conftest import another_server


def test_health_names_the_database_and_the_datapipe(client: httpx.Client) -> None:
    response = client.get("/api/v2/health")
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["healthy"] is True and data["database_reachable"] is True
    assert data["datapipe"]["alive"] is True
    assert data["datapipe"]["status"] in {"idle", "starting", "purging", "ingesting", "analyzing"}


def test_health_is_503_when_the_datapipe_has_stopped(server_settings: Settings, database: Database) -> None:
    with another_server(server_settings, database) as server:
        server.app.state.datapipe.stop()
        with httpx.Client(base_url=server.base_url, timeout=60) as http:
            response = http.get("/api/v2/health")
    assert response.status_code == 503
    assert response.json()["errors"][0]["message"] == "the datapipe is not running in this process"


def _sample(text: str, name: str, **labels: str) -> float | None:
    wanted = ",".join(f'{key}="{value}"' for key, value in sorted(labels.items()))
    for line in text.splitlines():
        if line.startswith(f"{name}{{"):
            metric, value = line.rsplit(" ", 1)
            got = ",".join(sorted(metric[len(name) + 1:-1].split(",")))
            if got == wanted:
                return float(value)
    return None


def test_metrics_count_requests_by_route_template(admin: httpx.Client) -> None:
    before = _sample(admin.get("/metrics").text, "houndgraph_http_requests_total",
                     method="GET", route="/api/v2/bloodhound-users/{user_id}", status="404") or 0
    for _ in range(3):
        admin.get("/api/v2/bloodhound-users/00000000-0000-0000-0000-000000000000")
    text = admin.get("/metrics").text
    after = _sample(text, "houndgraph_http_requests_total",
                    method="GET", route="/api/v2/bloodhound-users/{user_id}", status="404")
    assert after == before + 3
    assert "houndgraph_http_request_duration_seconds_bucket" in text
    assert "00000000-0000" not in text, "raw paths must not become labels"
    assert _sample(text, "houndgraph_database_up") is None  # unlabelled samples are read below
    assert "houndgraph_database_up 1.0" in text
    states = [line for line in text.splitlines() if line.startswith("houndgraph_datapipe_state{")]
    assert sorted(float(line.rsplit(" ", 1)[1]) for line in states) == [0, 0, 0, 0, 1]
    assert "houndgraph_ingest_file_seconds" in text and "houndgraph_analysis_seconds" in text


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def test_every_request_is_one_json_log_line(client: httpx.Client) -> None:
    logger, handler = logging.getLogger("houndgraph.access"), Lines()
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        response = client.get("/api/version")
        # The line is written once the response has gone out: give the server's thread a moment.
        deadline = time.monotonic() + 10
        while not any(response.headers["RequestID"] in line for line in handler.lines) and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    mine = [entry for entry in map(json.loads, handler.lines) if entry["request_id"] == response.headers["RequestID"]]
    assert len(mine) == 1
    assert mine[0]["method"] == "GET" and mine[0]["route"] == "/api/version" and mine[0]["status"] == 200
    assert mine[0]["duration_ms"] >= 0 and mine[0]["client"] == "127.0.0.1"
