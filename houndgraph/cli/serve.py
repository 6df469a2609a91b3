from __future__ import annotations

import os
import shutil
import socket
from typing import Any

import typer
import uvicorn
from fastapi import FastAPI
from rich.console import Console

from houndgraph.app import create_app, prepare_database
from houndgraph.db import Database
from houndgraph.deadline import InFlight
from houndgraph.observability import configure_logging
from houndgraph.settings import InsecureSettingError, Settings

console = Console(stderr=True)
# After SIGTERM, requests that still run this long (an upload still arriving, say) are cut short.
GRACEFUL_SHUTDOWN_SECONDS = 30
# uvicorn's supervisor kills a worker that does not answer its ping within this time. The answer comes from a
# thread of the worker, which must take the interpreter lock; the datapipe's ingest and analysis run in a worker
# and, at a million objects, hold that lock in C for seconds at a time (a result of millions of rows converted by
# psycopg, a large sort). uvicorn's 5 s killed the worker, and with it the analysis in progress, on the 2-core
# machine under load; two minutes still finds a worker that has really hung.
WORKER_HEALTHCHECK_SECONDS = 120


class Server(uvicorn.Server):
    """uvicorn's server that, as shutdown begins, cancels the database work of the requests in flight:
    they answer at once instead of holding the shutdown until their queries end."""

    def __init__(self, config: uvicorn.Config, in_flight: InFlight) -> None:
        super().__init__(config)
        self.in_flight = in_flight

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.in_flight.cancel_all()
        await super().shutdown(sockets)


def worker_app() -> FastAPI:
    """The app of one worker process (`--workers N`): settings come from the environment the parent set."""
    settings = Settings()
    configure_logging(settings.log_level)
    return create_app(settings)


def serve(
    host: str | None = typer.Option(None, help="Address to listen on (default HOUNDGRAPH_HOST)."),
    port: int | None = typer.Option(None, help="Port to listen on (default HOUNDGRAPH_PORT)."),
    workers: int | None = typer.Option(None, min=1, help="Worker processes sharing the port "
                                       "(default HOUNDGRAPH_WORKERS, else one per core)."),
) -> None:
    """Start the service (and its embedded PostgreSQL unless HOUNDGRAPH_DATABASE_URL is set)."""
    overrides: dict[str, Any] = {k: v for k, v in {"host": host, "port": port, "workers": workers}.items()
                                 if v is not None}
    settings = Settings(**overrides)
    try:
        settings.check()
    except InsecureSettingError as error:
        console.print(f"[bold red]Refusing to start:[/] {error}")
        raise typer.Exit(2) from None
    configure_logging(settings.log_level)
    workers = settings.workers
    console.print(f"houndgraph listening on http://{settings.host}:{settings.port} with {workers} worker(s) "
                  f"(data in {settings.data_dir.resolve()})")
    options: dict[str, Any] = {
        "host": settings.host, "port": settings.port, "log_level": settings.log_level, "log_config": None,
        "access_log": False, "server_header": False, "proxy_headers": bool(settings.forwarded_allow_ips),
        "forwarded_allow_ips": settings.forwarded_allow_ips}
    if workers == 1:
        app = create_app(settings)
        Server(uvicorn.Config(app, timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS, **options),
               app.state.in_flight).run()
        return
    # Workers are fresh interpreters: they read the same settings from the environment. Each writes its
    # metrics to a shared directory so that /metrics, whichever worker answers, adds them all up.
    os.environ.update({"HOUNDGRAPH_HOST": settings.host, "HOUNDGRAPH_PORT": str(settings.port)})
    metrics_dir = settings.data_dir.resolve() / "metrics"
    shutil.rmtree(metrics_dir, ignore_errors=True)
    metrics_dir.mkdir(parents=True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir)
    # The parent prepares the database once (migrations, the first administrator, whose generated password
    # is printed once) and holds the embedded server for the workers' lifetime, so they only attach to it.
    database = Database.open(settings)
    try:
        prepare_database(settings, database)
        uvicorn.run("houndgraph.cli.serve:worker_app", factory=True, workers=workers,
                    timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
                    timeout_worker_healthcheck=WORKER_HEALTHCHECK_SECONDS, **options)
    finally:
        database.close()
