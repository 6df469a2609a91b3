"""Upload jobs over HTTP, and what the collector files themselves say should be in the graph."""

from __future__ import annotations

import io
import json
import time
import zipfile
from collections import Counter
from pathlib import Path

import httpx
import psycopg

from tests.conftest import DATA

SHARPHOUND = DATA / "sharphound"
ADCS_ZIP = SHARPHOUND / "v6-adcs-lab" / "adcs.zip"
TESTLAB = SHARPHOUND / "v6-testlab"
FINISHED = {2, 3, 4, 5, 8}
# The node kind each SharpHound file type describes.
KIND_OF_TYPE = {
    "users": "User", "groups": "Group", "computers": "Computer", "domains": "Domain", "ous": "OU", "gpos": "GPO",
    "containers": "Container", "certtemplates": "CertTemplate", "enterprisecas": "EnterpriseCA", "rootcas": "RootCA",
    "aiacas": "AIACA", "ntauthstores": "NTAuthStore", "issuancepolicies": "IssuancePolicy",
}


def zipped(members: dict[str, bytes]) -> bytes:
    """A zip archive of `members` (name -> content), as a collector would upload it."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def start_job(http: httpx.Client) -> dict:
    response = http.post("/api/v2/file-upload/start")
    assert response.status_code == 201, response.text
    return response.json()["data"]


def upload(http: httpx.Client, job_id: int, body: bytes, content_type: str = "application/json",
           name: str | None = None) -> httpx.Response:
    headers = {"Content-Type": content_type}
    if name:
        headers["X-File-Upload-Name"] = name
    return http.post(f"/api/v2/file-upload/{job_id}", content=body, headers=headers)


def upload_path(http: httpx.Client, job_id: int, path: Path) -> None:
    content_type = "application/zip" if path.suffix == ".zip" else "application/json"
    response = upload(http, job_id, path.read_bytes(), content_type, path.name)
    assert response.status_code == 202, response.text


def end_job(http: httpx.Client, job_id: int) -> None:
    response = http.post(f"/api/v2/file-upload/{job_id}/end")
    assert response.status_code == 200, response.text


def job(http: httpx.Client, job_id: int) -> dict:
    response = http.get("/api/v2/file-upload", params={"id": f"eq:{job_id}"})
    assert response.status_code == 200, response.text
    (found,) = response.json()["data"]
    return found


def wait_for_job(http: httpx.Client, job_id: int, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        found = job(http, job_id)
        if found["status"] in FINISHED:
            return found
        assert time.monotonic() < deadline, f"job {job_id} still in status {found['status']}: {found}"
        time.sleep(0.1)


def ingest_paths(http: httpx.Client, paths: list[Path]) -> dict:
    started = start_job(http)
    for path in paths:
        upload_path(http, started["id"], path)
    end_job(http, started["id"])
    return wait_for_job(http, started["id"])


def completed_tasks(http: httpx.Client, job_id: int) -> list[dict]:
    response = http.get(f"/api/v2/file-upload/{job_id}/completed-tasks")
    assert response.status_code == 200, response.text
    return response.json()["data"]


def collector_documents(paths: list[Path]) -> list[dict]:
    """The JSON documents of files and zip archives, read with the standard library."""
    documents = []
    for path in paths:
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                for name in archive.namelist():
                    documents.append(json.loads(archive.read(name).decode("utf-8-sig")))
        else:
            documents.append(json.loads(path.read_text(encoding="utf-8-sig")))
    return documents


def object_ids_by_kind(paths: list[Path]) -> dict[str, set[str]]:
    by_kind: dict[str, set[str]] = {}
    for document in collector_documents(paths):
        kind = KIND_OF_TYPE.get(document["meta"]["type"])
        if kind is not None:
            by_kind.setdefault(kind, set()).update(item["ObjectIdentifier"].upper() for item in document["data"])
    return by_kind


def stored_counts(conn: psycopg.Connection, by_kind: dict[str, set[str]]) -> Counter[str]:
    """Per kind: how many of the given object ids are nodes carrying that kind."""
    counts: Counter[str] = Counter()
    for kind, ids in by_kind.items():
        row = conn.execute(
            "SELECT count(*) FROM node WHERE properties->>'objectid' = ANY(%s) "
            "AND kind_ids @> ARRAY[(SELECT id FROM kind WHERE name = %s)]::smallint[]",
            (sorted(ids), kind),
        ).fetchone()
        counts[kind] = row[0]
    return counts


def graph_size(conn: psycopg.Connection) -> tuple[int, int]:
    row = conn.execute("SELECT (SELECT count(*) FROM node), (SELECT count(*) FROM edge)").fetchone()
    return row[0], row[1]


def error_messages(response: httpx.Response, status: int) -> list[str]:
    """The reference error body with `status` (uploads may carry several entries); its messages."""
    assert response.status_code == status, response.text
    body = response.json()
    assert list(body) == ["http_status", "timestamp", "request_id", "errors"]
    assert body["http_status"] == status and body["request_id"] == response.headers["RequestID"]
    assert body["errors"] and all(error["context"] == "" for error in body["errors"])
    return [error["message"] for error in body["errors"]]
