from __future__ import annotations

import asyncio
from pathlib import Path

import typer

from houndgraph.attack_path import report as report_rendering
from houndgraph.attack_path import service as attack_path_service
from houndgraph.db import Database
from houndgraph.errors import NotFound, ServiceError
from houndgraph.settings import Settings


async def _build(domain: str | None, days: int) -> tuple[str, str]:
    database = Database.open(Settings())
    try:
        database.migrate()
        async with database.session() as session:
            built = await attack_path_service.build_report(session, domain, attack_path_service.report_window(days))
            return report_rendering.render(built), attack_path_service.report_file_name(built, domain)
    finally:
        await database.dispose()
        database.close()


def report(
    domain: str | None = typer.Option(None, help="Only this domain SID or tenant id (every one without it)."),
    days: int = typer.Option(attack_path_service.REPORT_DAYS, help="The trend's window in days."),
    output: Path | None = typer.Option(None, "--output", "-o", help="The file to write (default: a dated name here)."),
) -> None:
    """Write the posture report: one self-contained HTML file, printable to PDF from a browser."""
    try:
        html, name = asyncio.run(_build(domain, days))
    except NotFound:
        typer.echo(f"no domain or tenant {domain} is known", err=True)
        raise typer.Exit(2) from None
    except ServiceError as error:
        typer.echo(error.message, err=True)
        raise typer.Exit(2) from None
    path = output or Path(name)
    path.write_text(html, encoding="utf-8")
    typer.echo(str(path))
