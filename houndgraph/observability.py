"""Operations: Prometheus metrics at /metrics and one structured JSON log line per request.

Metrics are labelled by route template (`/api/v2/users/{user_id}`), never by raw path, so their number
stays bounded. With several worker processes (`houndgraph serve --workers N`) each process writes its
samples under PROMETHEUS_MULTIPROC_DIR and /metrics, answered by any of them, adds them all up.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

access_log = logging.getLogger("houndgraph.access")

REQUESTS = Counter("houndgraph_http_requests", "HTTP requests answered", ["method", "route", "status"])
LATENCY = Histogram("houndgraph_http_request_duration_seconds", "Time to answer an HTTP request", ["method", "route"],
                    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60))
INGEST_SECONDS = Histogram("houndgraph_ingest_file_seconds", "Time to ingest one uploaded file", ["outcome"],
                           buckets=(0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600))
ANALYSIS_SECONDS = Histogram("houndgraph_analysis_seconds", "Time of one analysis run", ["outcome"],
                             buckets=(1, 5, 10, 30, 60, 120, 300, 900, 3600))
DATAPIPE_STATES = ("idle", "starting", "purging", "ingesting", "analyzing")


def route_template(scope: Scope) -> str:
    route: Any = scope.get("route")
    return getattr(route, "path", None) or "unmatched"


class ObservabilityMiddleware:
    """Counts and times every HTTP request by route template and logs it as one JSON line."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            elapsed = time.perf_counter() - started
            route, method = route_template(scope), scope["method"]
            REQUESTS.labels(method, route, str(status)).inc()
            LATENCY.labels(method, route).observe(elapsed)
            if access_log.isEnabledFor(logging.INFO):
                client = scope.get("client")
                access_log.info(json.dumps({
                    "time": datetime.now(UTC).isoformat(timespec="milliseconds"), "event": "request",
                    "request_id": scope.get("state", {}).get("request_id", ""), "method": method, "route": route,
                    "path": scope["path"], "status": status, "duration_ms": round(elapsed * 1000, 2),
                    "client": client[0] if client else "",
                }))


class _StateCollector:
    """The datapipe's state and the database's reachability, read at scrape time (plain metric families:
    in multiprocess mode a Gauge object would write files of its own)."""

    def __init__(self, datapipe_status: str | None) -> None:
        self.datapipe_status = datapipe_status

    def collect(self) -> Iterator[GaugeMetricFamily]:
        state = GaugeMetricFamily("houndgraph_datapipe_state", "1 for the datapipe's current state", labels=["state"])
        for name in DATAPIPE_STATES:
            state.add_metric([name], 1 if self.datapipe_status == name else 0)
        yield state
        yield GaugeMetricFamily("houndgraph_database_up", "1 when the database answered the scrape",
                                value=0 if self.datapipe_status is None else 1)


def metrics_registry(datapipe_status: str | None) -> CollectorRegistry:
    """What /metrics shows: this process's metrics (or every worker's, in multiprocess mode) and the
    datapipe's state as the database has it, the same whichever process answers."""
    registry = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(registry)
    else:
        for collector in (REQUESTS, LATENCY, INGEST_SECONDS, ANALYSIS_SECONDS):
            registry.register(collector)
    registry.register(_StateCollector(datapipe_status))  # type: ignore[arg-type]
    return registry


async def metrics(request: Request) -> Response:
    from houndgraph.health.service import datapipe_state

    registry = metrics_registry(await datapipe_state(request.app.state.database))
    return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)


class _JsonFormatter(logging.Formatter):
    """Access lines are JSON already; any other record becomes a JSON object of the same shape."""

    def format(self, record: logging.LogRecord) -> str:
        if record.name == access_log.name:
            return record.getMessage()
        entry = {"time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
                 "event": "log", "level": record.levelname.lower(), "logger": record.name,
                 "message": record.getMessage()}
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry)


def configure_logging(level: str) -> None:
    """The service's logs, one JSON object a line on standard error (uvicorn's text access log is off)."""
    handler = logging.StreamHandler()
    handler.setFormatter(_JsonFormatter())
    for name in ("houndgraph", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level.upper())
        logger.propagate = False
