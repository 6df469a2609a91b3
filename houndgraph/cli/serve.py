from __future__ import annotations

import socket
from typing import Any

import typer
import uvicorn
from rich.console import Console

from houndgraph.app import create_app
from houndgraph.deadline import InFlight
from houndgraph.settings import InsecureSettingError, Settings

console = Console(stderr=True)
# After SIGTERM, requests that still run this long (an upload still arriving, say) are cut short.
GRACEFUL_SHUTDOWN_SECONDS = 30


class Server(uvicorn.Server):
    """uvicorn's server that, as shutdown begins, cancels the database work of the requests in flight:
    they answer at once instead of holding the shutdown until their queries end."""

    def __init__(self, config: uvicorn.Config, in_flight: InFlight) -> None:
        super().__init__(config)
        self.in_flight = in_flight

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.in_flight.cancel_all()
        await super().shutdown(sockets)


def serve(
    host: str | None = typer.Option(None, help="Address to listen on (default HOUNDGRAPH_HOST)."),
    port: int | None = typer.Option(None, help="Port to listen on (default HOUNDGRAPH_PORT)."),
) -> None:
    """Start the service (and its embedded PostgreSQL unless HOUNDGRAPH_DATABASE_URL is set)."""
    overrides: dict[str, Any] = {k: v for k, v in {"host": host, "port": port}.items() if v is not None}
    settings = Settings(**overrides)
    try:
        app = create_app(settings)
    except InsecureSettingError as error:
        console.print(f"[bold red]Refusing to start:[/] {error}")
        raise typer.Exit(2) from None
    console.print(f"houndgraph listening on http://{settings.host}:{settings.port} "
                  f"(data in {settings.data_dir.resolve()})")
    config = uvicorn.Config(app, host=settings.host, port=settings.port, log_level=settings.log_level,
                            proxy_headers=False, server_header=False,
                            timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS)
    Server(config, app.state.in_flight).run()
