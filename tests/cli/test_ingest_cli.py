"""`houndgraph ingest` as a user runs it: a subprocess, on the database directly or against the service."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import httpx

from houndgraph.db import Database
from tests.conftest import ADMIN_PASSWORD, LiveServer
from tests.file_upload.helpers import ADCS_ZIP, TESTLAB, object_ids_by_kind, stored_counts


def houndgraph_ingest(*args: str, database: Database, extra_env: dict[str, str] | None = None,
                      ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOUNDGRAPH_DATABASE_URL": database.url, "COLUMNS": "250", **(extra_env or {})}
    return subprocess.run([sys.executable, "-m", "houndgraph.cli", "ingest", *args], env=env, capture_output=True,
                          text=True, timeout=300)


def last_job(database: Database) -> tuple[int, int, str | None, int, int]:
    with database.connect_raw() as conn:
        return conn.execute("SELECT id, status, user_id::text, total_files, failed_files FROM ingest_jobs "
                            "ORDER BY id DESC LIMIT 1").fetchone()


def test_files_folders_and_zips_go_straight_into_the_database(empty_graph: Database, tmp_path: Path) -> None:
    folder = tmp_path / "collection"
    shutil.copytree(TESTLAB, folder)
    result = houndgraph_ingest(str(ADCS_ZIP), str(folder), database=empty_graph)
    assert result.returncode == 0, result.stderr
    assert "job complete" in result.stderr
    assert "22/22 files" in result.stderr and "objects/s" in result.stderr
    for name in ("certtemplates.json", "sessions.json", "adcs.zip"):
        assert name in result.stderr
    _, status, user_id, total, failed = last_job(empty_graph)
    assert (status, user_id, total, failed) == (2, None, 22, 0)
    paths = [ADCS_ZIP, *sorted(folder.glob("*.json"))]
    expected = object_ids_by_kind(paths)
    with empty_graph.connect_raw() as conn:
        assert stored_counts(conn, expected) == {kind: len(ids) for kind, ids in expected.items()}
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in TESTLAB.iterdir()), \
        "files read in place are never deleted"


def test_a_bad_file_is_reported_and_the_exit_code_says_so(empty_graph: Database, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"meta": {"type": "users", "version": 6}}')
    result = houndgraph_ingest(str(TESTLAB / "users.json"), str(bad), database=empty_graph)
    assert result.returncode == 1
    assert "partially complete" in result.stderr
    assert "no data tag found" in result.stderr
    _, status, _, total, failed = last_job(empty_graph)
    assert (status, total, failed) == (8, 2, 1)


def test_nothing_to_ingest_is_an_error(empty_graph: Database, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    result = houndgraph_ingest(str(tmp_path), database=empty_graph)
    assert result.returncode == 2
    assert "no .json or .zip files found" in result.stderr


def test_against_a_running_service_with_a_password(live_server: LiveServer, empty_graph: Database) -> None:
    result = houndgraph_ingest(str(ADCS_ZIP), str(TESTLAB / "users.json"), "--url", live_server.base_url,
                               "--username", "admin", database=empty_graph,
                               extra_env={"HOUNDGRAPH_PASSWORD": ADMIN_PASSWORD})
    assert result.returncode == 0, result.stderr
    assert "job complete" in result.stderr and "users.json" in result.stderr
    job_id, status, user_id, total, failed = last_job(empty_graph)
    assert (status, total, failed) == (2, 14, 0)
    assert user_id is not None, "the job belongs to the user who uploaded"
    expected = object_ids_by_kind([ADCS_ZIP, TESTLAB / "users.json"])
    with empty_graph.connect_raw() as conn:
        assert stored_counts(conn, expected) == {kind: len(ids) for kind, ids in expected.items()}


def test_against_a_running_service_with_an_api_token(live_server: LiveServer, admin: httpx.Client,
                                                     database: Database, tmp_path: Path) -> None:
    token = admin.post("/api/v2/tokens", json={"token_name": "cli"}).json()["data"]
    refused = tmp_path / "refused.json"
    refused.write_text("{}")
    result = houndgraph_ingest(str(TESTLAB / "ous.json"), str(refused), "--url", live_server.base_url,
                               "--token-id", token["id"], database=database,
                               extra_env={"HOUNDGRAPH_TOKEN_KEY": token["key"]})
    assert result.returncode == 1, result.stderr
    assert "refused" in result.stderr and "no valid meta tag or data tag found" in result.stderr
    assert "ous.json" in result.stderr and "job complete" in result.stderr


def test_a_service_url_without_credentials_is_refused(live_server: LiveServer, database: Database) -> None:
    result = houndgraph_ingest(str(TESTLAB / "ous.json"), "--url", live_server.base_url, database=database)
    assert result.returncode == 2
    assert "--password" in result.stderr
