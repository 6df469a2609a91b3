from __future__ import annotations

import csv
import json
import sys
from enum import StrEnum

import typer
from rich.console import Console
from rich.table import Table
from sqlalchemy.orm import Session

from houndgraph.attack_path.commands import COLUMNS, current_findings
from houndgraph.db import Database
from houndgraph.settings import Settings

# The table keeps what fits a terminal; json and csv carry every column.
TABLE_COLUMNS = ("id", "finding", "principal", "target", "impact_count", "severity", "accepted")


class Format(StrEnum):
    TABLE = "table"
    JSON = "json"
    CSV = "csv"


def findings(
    domain: str | None = typer.Option(None, help="Only this domain SID or tenant id."),
    output: Format = typer.Option(Format.TABLE, "--format", help="table, json or csv."),
) -> None:
    """Print the current attack-path findings, largest impact first."""
    database = Database.open(Settings())
    try:
        database.migrate()
        with Session(database.sync_engine) as session:
            rows = current_findings(session, domain)
    finally:
        database.close()
    if output is Format.JSON:
        typer.echo(json.dumps(rows, indent=2))
    elif output is Format.CSV:
        writer = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    else:
        table = Table()
        for column in TABLE_COLUMNS:
            table.add_column(column, overflow="fold")
        for row in rows:
            table.add_row(*(str(row[column]) if row[column] is not None else "" for column in TABLE_COLUMNS))
        Console().print(table)
