"""`houndgraph report`: the posture report of the test database as one self-contained HTML file."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from houndgraph.cli.main import app
from houndgraph.db import Database
from tests.attack_path.graphs import FINDING_TABLES, SID, load

# Anything a browser would fetch: a src or href attribute, a stylesheet link, a CSS url() or @import.
EXTERNAL = re.compile(r"""\s(src|href)=|<link|url\(|@import""", re.IGNORECASE)


@pytest.fixture
def houndgraph(database: Database, tmp_path: Path) -> Iterator[CliRunner]:
    load(database, tmp_path)
    yield CliRunner(env={"HOUNDGRAPH_DATABASE_URL": database.url, "HOUNDGRAPH_DATA_DIR": str(tmp_path)})
    with database.connect_raw(autocommit=True) as conn:
        conn.execute(f"TRUNCATE edge, node, {FINDING_TABLES} RESTART IDENTITY CASCADE")


def test_the_report_of_one_domain_is_self_contained_html(houndgraph: CliRunner, tmp_path: Path) -> None:
    target = tmp_path / "hound.html"
    result = houndgraph.invoke(app, ["report", "--domain", SID.lower(), "--output", str(target)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == str(target)
    html = target.read_text()
    assert html.startswith("<!doctype html>") and "HOUND.LOCAL" in html
    assert not EXTERNAL.search(html)
    assert re.search(r'data-figure="Tier Zero size">Tier Zero size<b>3</b>', html)
    # What to fix first: the critical Kerberoastable Tier Zero user before the rest, with its remediation.
    order = re.findall(r'data-finding="(\w+)"', html)
    assert order[0] == "Kerberoasting" and set(order) == {"Kerberoasting", "T0GenericAll", "ComputersWithoutLAPS",
                                                          "T0Logins"}
    assert html.count("How to fix it.") == 4
    assert html.count("<svg") == 3


def test_the_report_of_every_domain_has_a_dated_default_name(houndgraph: CliRunner, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = houndgraph.invoke(app, ["report", "--days", "7"])
    assert result.exit_code == 0, result.output
    written = Path(result.stdout.strip())
    assert re.fullmatch(r"houndgraph-report-all-\d{4}-\d{2}-\d{2}\.html", written.name)
    assert f'data-environment="{SID}"' in written.read_text()


def test_bad_arguments_are_refused_with_a_message(houndgraph: CliRunner) -> None:
    result = houndgraph.invoke(app, ["report", "--days", "0"])
    assert result.exit_code == 2 and "days must be a whole number from 1 to 3650" in result.stderr
    result = houndgraph.invoke(app, ["report", "--domain", "S-1-5-21-0-0-0"])
    assert result.exit_code == 2 and "no domain or tenant S-1-5-21-0-0-0 is known" in result.stderr
