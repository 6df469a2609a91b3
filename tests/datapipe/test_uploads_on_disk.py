"""Stored uploads: deleted once read, and what a crash leaves behind is swept at the next start."""

from __future__ import annotations

import asyncio
import os
import stat
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx

from houndgraph.file_upload.storage import store_body
from houndgraph.settings import Settings
from houndgraph.worker.files import sweep_uploads
from tests.file_upload.helpers import ADCS_ZIP, TESTLAB, ingest_paths


def test_uploads_are_deleted_once_every_document_in_them_is_read(admin: httpx.Client,
                                                                 server_settings: Settings) -> None:
    finished = ingest_paths(admin, [ADCS_ZIP, TESTLAB / "users.json"])
    assert finished["status"] == 2
    folder = server_settings.uploads_dir.resolve() / str(finished["id"])
    assert not folder.exists() or list(folder.iterdir()) == []


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


def test_a_stored_upload_is_readable_by_the_service_alone(tmp_path: Path) -> None:
    # Collected data names every account, session and ACL of a domain: not for other local users while it waits.
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"data": [], "meta": {"type": "users", "count": 0, "version": 6}}'

    old = os.umask(0o022)  # the usual umask, whatever the test runner's
    try:
        stored = asyncio.run(store_body(chunks(), tmp_path / "uploads" / "7", ".json"))
    finally:
        os.umask(old)
    assert stat.S_IMODE(stored.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(stored.path.parent.stat().st_mode) == 0o700
