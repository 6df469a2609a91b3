from __future__ import annotations

from typing import Any

import typer
import uvicorn
from rich.console import Console

from houndgraph.app import create_app
from houndgraph.settings import InsecureSettingError, Settings

console = Console(stderr=True)


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
    uvicorn.run(app, host=settings.host, port=settings.port, log_level=settings.log_level,
                proxy_headers=False, server_header=False)
