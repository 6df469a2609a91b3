"""Collector releases an operator placed in the data dir, listed and offered for download."""

from __future__ import annotations

import hashlib
import shutil

import httpx

from houndgraph.settings import Settings
from tests.client.helpers import error_message


def test_collectors_lists_the_placed_releases_newest_first(admin: httpx.Client, server_settings: Settings) -> None:
    folder = server_settings.collectors_dir / "sharphound"
    folder.mkdir(parents=True, exist_ok=True)
    try:
        releases = {"SharpHound-v2.5.10.zip": b"new", "SharpHound-v2.5.9.zip": b"old", "notes.txt": b"x"}
        for name, content in releases.items():
            (folder / name).write_bytes(content)
        listed = admin.get("/api/v2/collectors/sharphound").json()["data"]
        assert listed == {"latest": "v2.5.10", "versions": [
            {"version": "v2.5.10", "sha256sum": hashlib.sha256(b"new").hexdigest(), "deprecated": False},
            {"version": "v2.5.9", "sha256sum": hashlib.sha256(b"old").hexdigest(), "deprecated": False}]}
        download = admin.get("/api/v2/collectors/sharphound/latest")
        assert download.status_code == 200 and download.content == b"new"
        checksum = admin.get("/api/v2/collectors/sharphound/v2.5.9/checksum")
        assert checksum.text == f"{hashlib.sha256(b'old').hexdigest()}  SharpHound-v2.5.9.zip\n"
        assert error_message(admin.get("/api/v2/collectors/sharphound/v9.9.9"), 404) == "resource not found"
    finally:
        shutil.rmtree(folder)
    assert admin.get("/api/v2/collectors/azurehound").json()["data"] == {"latest": "", "versions": []}
    assert error_message(admin.get("/api/v2/collectors/nethound"), 400) == "invalid collector type"
