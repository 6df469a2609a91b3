"""`houndgraph db backup PATH` and `db restore PATH`: a round trip on a database of its own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

from houndgraph.cli.main import app
from houndgraph.db import Database
from tests.conftest import scratch_database


@pytest.fixture
def scratch(database: Database) -> Iterator[Database]:
    with scratch_database(database, "hg_backup") as db:
        yield db


def graph_and_parameters(conn: psycopg.Connection) -> tuple[list, list]:
    nodes = conn.execute("SELECT properties->>'objectid', properties->>'name' FROM node ORDER BY 1").fetchall()
    parameters = conn.execute("SELECT key, value::text FROM parameters ORDER BY 1").fetchall()
    return nodes, parameters


def test_a_backup_restores_what_was_there(scratch: Database, tmp_path: Path) -> None:
    runner = CliRunner(env={"HOUNDGRAPH_DATABASE_URL": scratch.url, "HOUNDGRAPH_DATA_DIR": str(tmp_path)})
    with scratch.connect_raw(autocommit=True) as conn:
        conn.execute("INSERT INTO node (kind_ids, properties) VALUES ('{}', %s), ('{}', %s)",
                     ('{"objectid": "S-1-5-21-1", "name": "ALICE"}', '{"objectid": "S-1-5-21-2", "name": "BOB"}'))
        before = graph_and_parameters(conn)
    dump = tmp_path / "houndgraph.dump"
    result = runner.invoke(app, ["db", "backup", str(dump)])
    assert result.exit_code == 0, result.output
    assert dump.stat().st_size > 0
    with scratch.connect_raw(autocommit=True) as conn:
        conn.execute("DELETE FROM node")
        conn.execute("DELETE FROM parameters")
        conn.execute("INSERT INTO node (kind_ids, properties) VALUES ('{}', '{\"objectid\": \"S-1-5-21-9\"}')")
    result = runner.invoke(app, ["db", "restore", str(dump)])
    assert result.exit_code == 0, result.output
    with scratch.connect_raw(autocommit=True) as conn:
        assert graph_and_parameters(conn) == before
        assert len(before[0]) == 2 and before[1]


def test_restore_refuses_a_file_that_is_not_a_backup(scratch: Database, tmp_path: Path) -> None:
    runner = CliRunner(env={"HOUNDGRAPH_DATABASE_URL": scratch.url, "HOUNDGRAPH_DATA_DIR": str(tmp_path)})
    junk = tmp_path / "junk.dump"
    junk.write_bytes(b"not a dump")
    result = runner.invoke(app, ["db", "restore", str(junk)])
    assert result.exit_code == 1
    assert "pg_restore failed" in result.output
