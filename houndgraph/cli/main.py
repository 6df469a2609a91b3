from __future__ import annotations

import typer

from houndgraph.cli import db as db_commands
from houndgraph.cli import findings as findings_command
from houndgraph.cli import ingest_command
from houndgraph.cli import openapi as openapi_command
from houndgraph.cli import report as report_command
from houndgraph.cli import serve as serve_command
from houndgraph.cli import user as user_commands

app = typer.Typer(help="houndgraph: attack-path analysis for Active Directory and Azure.",
                  no_args_is_help=True, add_completion=False)
app.command("serve")(serve_command.serve)
app.command("ingest")(ingest_command.ingest)
app.command("findings")(findings_command.findings)
app.command("report")(report_command.report)
app.command("openapi")(openapi_command.openapi)
app.add_typer(db_commands.app, name="db")
app.add_typer(user_commands.app, name="user")
