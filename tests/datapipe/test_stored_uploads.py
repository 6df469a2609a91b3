"""Stored uploads: kept in PostgreSQL until read (so that the datapipe of any host can read them), copied to a
private file of the host that reads them, deleted once read, and what a crash leaves behind is swept at the next
start."""

from __future__ import annotations

import asyncio
import os
import stat
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx

from houndgraph.db import Database
from houndgraph.file_upload.storage import CHUNK_BYTES, spool_body
from houndgraph.settings import Settings
from houndgraph.worker.files import copy_out, sweep_uploads
from tests.datapipe.helpers import paused_datapipe, private_datapipe
from tests.file_upload.helpers import (
    ADCS_ZIP,
    TESTLAB,
    end_job,
    graph_size,
    ingest_paths,
    start_job,
    upload,
    wait_for_job,
    zipped,
)


def upload_rows(database: Database, job_id: int) -> tuple[int, int]:
    """(rows, bytes) of the job's uploads still kept in the database."""
    with database.connect_raw() as conn:
        row = conn.execute(
            "SELECT count(*), coalesce(sum(octet_length(data)), 0) FROM upload_chunks WHERE upload_id IN "
            "(SELECT upload_id FROM ingest_tasks WHERE job_id = %s)", (job_id,)).fetchone()
        assert row is not None
        return int(row[0]), int(row[1])


def stored_upload_bytes(database: Database) -> int:
    """The size of the stored uploads' table and its TOAST table (their main forks: a vacuum adds the others)."""
    with database.connect_raw() as conn:
        row = conn.execute("SELECT pg_relation_size(oid) + pg_relation_size(reltoastrelid) FROM pg_class "
                           "WHERE oid = 'upload_chunks'::regclass").fetchone()
        assert row is not None
        return int(row[0])


def files_under(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*") if path.is_file()) if folder.exists() else []


def test_an_upload_is_kept_in_the_database_and_read_by_a_host_that_never_saw_it(
        admin: httpx.Client, empty_graph: Database, server_settings: Settings, tmp_path: Path) -> None:
    # Larger than one chunk, so it is kept in several rows; the bytes are the collector's (spaces are JSON too).
    users = (TESTLAB / "users.json").read_bytes()
    big = users.rstrip()[:-1] + b" " * (CHUNK_BYTES + 12_345) + b"}"
    archive = zipped({"groups.json": (TESTLAB / "groups.json").read_bytes(),
                      "computers.json": (TESTLAB / "computers.json").read_bytes()})
    with paused_datapipe(empty_graph) as conn:
        job_id = start_job(admin)["id"]
        assert upload(admin, job_id, big).status_code == 202
        assert upload(admin, job_id, archive, "application/zip").status_code == 202
        end_job(admin, job_id)
        assert upload_rows(empty_graph, job_id) == (3, len(big) + len(archive)), "two rows of the JSON, one zip"
        assert files_under(server_settings.uploads_dir) == [], "nothing of an accepted upload is left on disk"
        # Another host: an uploads folder of its own, which has never held these files.
        elsewhere = private_datapipe(server_settings, empty_graph, conn, data_dir=tmp_path / "elsewhere")
        assert elsewhere.tick()
        assert upload_rows(empty_graph, job_id) == (0, 0), "the rows go once every document in them is read"
        assert files_under(tmp_path / "elsewhere" / "uploads") == [], "and so does the host's copy"
    finished = wait_for_job(admin, job_id)
    assert (finished["status"], finished["completed_files"], finished["failed_files"]) == (2, 3, 0), finished
    with empty_graph.connect_raw() as conn:
        nodes, edges = graph_size(conn)
    assert nodes > 0 and edges > 0


def test_a_refused_upload_leaves_no_rows(admin: httpx.Client, database: Database) -> None:
    job_id = start_job(admin)["id"]
    assert upload(admin, job_id, b'{"meta": {"type": "users"').status_code == 400
    with database.connect_raw() as conn:
        assert conn.execute("SELECT count(*) FROM ingest_tasks WHERE job_id = %s", (job_id,)).fetchone() == (0,)
    assert upload_rows(database, job_id) == (0, 0)


def test_uploads_are_deleted_once_every_document_in_them_is_read(admin: httpx.Client, database: Database,
                                                                 server_settings: Settings) -> None:
    finished = ingest_paths(admin, [ADCS_ZIP, TESTLAB / "users.json"])
    assert finished["status"] == 2
    folder = server_settings.uploads_dir.resolve() / str(finished["id"])
    assert not folder.exists() or list(folder.iterdir()) == []
    assert upload_rows(database, finished["id"]) == (0, 0)


def test_the_sweep_keeps_what_tasks_need_and_what_may_be_in_flight(tmp_path: Path) -> None:
    uploads = tmp_path / "uploads"
    old_orphan, needed, young_orphan = uploads / "1" / "a.json", uploads / "1" / "b.zip", uploads / "2" / "c.json"
    empty_old, partial_old = uploads / "3", uploads / "4" / "d.json.part"
    for path in (old_orphan, needed, young_orphan, partial_old):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
    empty_old.mkdir()
    an_hour_ago = time.time() - 3700
    for path in (old_orphan, needed, partial_old, partial_old.parent, empty_old):
        os.utime(path, (an_hour_ago, an_hour_ago))

    removed = sweep_uploads(uploads, {str(needed)})

    assert removed == 2
    assert not old_orphan.exists() and not partial_old.exists() and not empty_old.exists()
    assert needed.exists(), "an unfinished task still reads it"
    assert young_orphan.exists(), "its task row may not be committed yet"


def test_an_upload_on_disk_is_readable_by_the_service_alone(tmp_path: Path) -> None:
    # Collected data names every account, session and ACL of a domain: not for other local users, neither while the
    # upload is checked nor in the copy the datapipe reads.
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"data": [], "meta": {"type": "users", "count": 0, "version": 6}}'

    old = os.umask(0o022)  # the usual umask, whatever the test runner's
    try:
        spooled = asyncio.run(spool_body(chunks(), tmp_path / "uploads", ".json"))
        copy = tmp_path / "copies" / "7" / "a.json"
        assert copy_out([b"{}"], copy)
    finally:
        os.umask(old)
    for path in (spooled.path, copy):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_a_copy_of_an_upload_whose_rows_are_gone_is_not_made(tmp_path: Path) -> None:
    assert not copy_out([], tmp_path / "1" / "gone.json")
    assert files_under(tmp_path) == []


def test_the_space_of_a_read_upload_goes_back_to_the_disk_once_its_analysis_ends(
        admin: httpx.Client, empty_graph: Database, server_settings: Settings) -> None:
    # Deleting the rows left their pages in the table until autovacuum came by, a minute or more later: a million
    # objects' data directory measured 0.1 GB more for it. A zip, so the table holds it at its own size.
    archive = ADCS_ZIP.read_bytes()
    with paused_datapipe(empty_graph) as conn:
        before = stored_upload_bytes(empty_graph)
        job_id = start_job(admin)["id"]
        assert upload(admin, job_id, archive, "application/zip").status_code == 202
        end_job(admin, job_id)
        assert stored_upload_bytes(empty_graph) >= before + len(archive) // 2
        assert private_datapipe(server_settings, empty_graph, conn).tick()
        assert upload_rows(empty_graph, job_id) == (0, 0)
        assert wait_for_job(admin, job_id)["status"] == 2
    assert stored_upload_bytes(empty_graph) <= before
