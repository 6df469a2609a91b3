"""`houndgraph findings`: the current findings of the test database, as JSON, CSV and a table."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from houndgraph.cli.main import app
from houndgraph.db import Database
from tests.attack_path.graphs import FINDING_TABLES, SID, load


@pytest.fixture
def houndgraph(database: Database, tmp_path: Path) -> Iterator[CliRunner]:
    load(database, tmp_path)
    yield CliRunner(env={"HOUNDGRAPH_DATABASE_URL": database.url, "HOUNDGRAPH_DATA_DIR": str(tmp_path)})
    with database.connect_raw(autocommit=True) as conn:
        conn.execute(f"TRUNCATE edge, node, {FINDING_TABLES} RESTART IDENTITY CASCADE")


def test_json_lists_the_findings_largest_impact_first(houndgraph: CliRunner) -> None:
    result = houndgraph.invoke(app, ["findings", "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert sorted(row["finding"] for row in rows) == ["ComputersWithoutLAPS", "Kerberoasting", "T0GenericAll",
                                                      "T0Logins"]
    assert rows[0]["finding"] == "Kerberoasting" and rows[0]["impact_count"] == 5
    generic_all = next(row for row in rows if row["finding"] == "T0GenericAll")
    assert (generic_all["principal"], generic_all["target"]) == ("HAL@HOUND.LOCAL", "DOMAIN ADMINS@HOUND.LOCAL")


def test_csv_and_the_domain_filter(houndgraph: CliRunner) -> None:
    result = houndgraph.invoke(app, ["findings", "--format", "csv", "--domain", SID.lower()])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert len(rows) == 4 and {row["domain_sid"] for row in rows} == {SID}
    other = houndgraph.invoke(app, ["findings", "--format", "csv", "--domain", "S-1-5-21-404"])
    assert other.exit_code == 0 and other.stdout.strip().count("\n") == 0  # the header only
    table = houndgraph.invoke(app, ["findings"], env={"COLUMNS": "160"})
    assert table.exit_code == 0 and "T0GenericAll" in table.stdout
