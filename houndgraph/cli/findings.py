from __future__ import annotations

import asyncio
import csv
import json
import sys
from enum import StrEnum

import typer
from rich.console import Console
from rich.table import Table

from houndgraph.analysis.findings.finding_types import severity
from houndgraph.attack_path import service as attack_path_service
from houndgraph.attack_path.schemas import ListFinding, RelationshipFinding
from houndgraph.db import Database
from houndgraph.settings import Settings

COLUMNS = ("finding", "domain_sid", "principal", "principal_kind", "target", "target_kind", "impact_count",
           "impact_percentage", "severity", "accepted", "id")
# The table keeps what fits a terminal; json and csv carry every column.
TABLE_COLUMNS = ("id", "finding", "principal", "target", "impact_count", "severity", "accepted")


class Format(StrEnum):
    TABLE = "table"
    JSON = "json"
    CSV = "csv"


def _flat(view: RelationshipFinding | ListFinding) -> dict[str, object]:
    """One record per finding, nodes by name where they have one."""
    if isinstance(view, ListFinding):
        principal, kind, props = view.Principal, view.PrincipalKind, view.Props
        target = target_kind = None
    else:
        principal, kind, props = view.FromPrincipal, view.FromPrincipalKind, view.FromPrincipalProps
        target, target_kind = view.ToPrincipalProps.get("name") or view.ToPrincipal, view.ToPrincipalKind
    return {"finding": view.Finding, "domain_sid": view.DomainSID, "principal": props.get("name") or principal,
            "principal_kind": kind, "target": target, "target_kind": target_kind, "impact_count": view.ImpactCount,
            "impact_percentage": round(view.ImpactPercentage, 4), "severity": severity(view.ImpactPercentage),
            "accepted": view.Accepted, "id": view.id}


async def _current(domain: str | None) -> list[dict[str, object]]:
    database = Database.open(Settings())
    try:
        database.migrate()
        async with database.session() as session:
            return [_flat(view) for view in await attack_path_service.current_findings(session, domain)]
    finally:
        await database.dispose()
        database.close()


def findings(
    domain: str | None = typer.Option(None, help="Only this domain SID or tenant id."),
    output: Format = typer.Option(Format.TABLE, "--format", help="table, json or csv."),
) -> None:
    """Print the current attack-path findings, largest impact first."""
    rows = asyncio.run(_current(domain))
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
