from __future__ import annotations

import typer
from rich.console import Console

from houndgraph.db import Database
from houndgraph.settings import Settings

app = typer.Typer(help="The database: migrations.", no_args_is_help=True)
console = Console(stderr=True)


@app.command("upgrade")
def upgrade() -> None:
    """Apply every pending migration (the service also does this at start)."""
    database = Database.open(Settings())
    try:
        database.migrate()
    finally:
        database.close()
    console.print("database is at the newest revision")
