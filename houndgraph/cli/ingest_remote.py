"""`houndgraph ingest --url`: the same files through the upload API of a running service (houndgraph or
BloodHound CE), logged in with a password or signing each request with an API token."""

from __future__ import annotations

import base64
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import typer
from rich.console import Console

from houndgraph.auth.service import signature_hasher
from houndgraph.cli.ingest_display import (
    FINISHED_STATUSES,
    JOB_STATUS_NAMES,
    SUCCESS_STATUSES,
    FileOutcome,
    IngestProgress,
    summary_table,
)

POLL_SECONDS = 0.5
READ_CHUNK = 1 << 20
ZIP_MAGIC = b"PK"


class TokenAuth(httpx.Auth):
    """The reference's request signature: HMAC chain over method + URI, the hour of the request, the body.
    Upload bodies are files: hashed from disk, then streamed, never held in memory."""

    requires_request_body = False

    def __init__(self, token_id: str, token_key: str) -> None:
        self.token_id = token_id
        self.token_key = token_key

    def auth_flow(self, request: httpx.Request):  # type: ignore[no-untyped-def]
        now = datetime.now(UTC)
        target = request.url.raw_path.decode("latin-1")
        hasher = signature_hasher(self.token_key, request.method, target, now)
        body_path = request.extensions.get("houndgraph_body_path")
        if body_path is not None:
            with Path(body_path).open("rb") as handle:
                while chunk := handle.read(READ_CHUNK):
                    hasher.update(chunk)
        else:
            hasher.update(request.read())
        request.headers["Authorization"] = f"bhesignature {self.token_id}"
        request.headers["RequestDate"] = now.isoformat()
        request.headers["Signature"] = base64.b64encode(hasher.digest()).decode()
        yield request


def _client(url: str, username: str | None, password: str | None, token_id: str | None,
            token_key: str | None) -> httpx.Client:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise typer.BadParameter(f"{url} is not an http(s) URL", param_hint="--url")
    base = f"{parts.scheme}://{parts.netloc}"
    if token_id and token_key:
        return httpx.Client(base_url=base, auth=TokenAuth(token_id, token_key), timeout=600)
    if username and password:
        client = httpx.Client(base_url=base, timeout=600)
        response = client.post("/api/v2/login", json={"login_method": "secret", "username": username,
                                                      "secret": password})
        _check(response, 200, "logging in")
        client.headers["Authorization"] = f"Bearer {response.json()['data']['session_token']}"
        return client
    raise typer.BadParameter("give --username and --password, or --token-id and --token-key", param_hint="--url")


def _messages(response: httpx.Response) -> list[str]:
    try:
        return [str(error.get("message", "")) for error in response.json().get("errors", [])]
    except (ValueError, AttributeError):
        return [response.text[:500] or f"HTTP {response.status_code}"]


def _check(response: httpx.Response, status: int, doing: str) -> None:
    if response.status_code != status:
        raise typer.BadParameter(f"{doing}: HTTP {response.status_code}: {'; '.join(_messages(response))}",
                                 param_hint="--url")


def _chunks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as handle:
        while chunk := handle.read(READ_CHUNK):
            yield chunk


def _upload(client: httpx.Client, job_id: int, path: Path) -> httpx.Response:
    with path.open("rb") as handle:
        is_zip = handle.read(2) == ZIP_MAGIC
    # The content type follows the bytes, not the name: the service refuses a mismatch.
    headers = {"Content-Type": "application/zip" if is_zip else "application/json",
               "X-File-Upload-Name": path.name, "Content-Length": str(path.stat().st_size)}
    request = client.build_request("POST", f"/api/v2/file-upload/{job_id}", content=_chunks(path), headers=headers,
                                   extensions={"houndgraph_body_path": str(path)})
    return client.send(request)


def _outcome(task: dict) -> FileOutcome:
    # BloodHound CE lists neither state nor counts: a task there failed if it has errors.
    state = task.get("state") or ("failed" if task["errors"] else "complete")
    return FileOutcome(task["file_name"], task.get("parent_file_name") or "", state, task.get("nodes_written", 0),
                       task.get("edges_written", 0), list(task["errors"]), list(task.get("warnings") or []))


def run(console: Console, url: str, files: list[Path], *, username: str | None, password: str | None,
        token_id: str | None, token_key: str | None, wait: bool) -> bool:
    started = time.monotonic()
    client = _client(url, username, password, token_id, token_key)
    try:
        response = client.post("/api/v2/file-upload/start")
        _check(response, 201, "starting an upload job")
        job_id = int(response.json()["data"]["id"])
        refused: list[FileOutcome] = []
        with IngestProgress(console, len(files)) as bar:
            for index, path in enumerate(files):
                bar.update(files_done=index, objects=0, edges=0, description=f"uploading {path.name}")
                answer = _upload(client, job_id, path)
                if answer.status_code != 202:
                    refused.append(FileOutcome(path.name, "", "refused", 0, 0, _messages(answer)))
            _check(client.post(f"/api/v2/file-upload/{job_id}/end"), 200, "ending the upload job")
            if not wait:
                console.print(f"upload job {job_id} ended; follow it with GET /api/v2/file-upload?id=eq:{job_id}")
                return not refused
            while True:
                listed = client.get("/api/v2/file-upload", params={"id": f"eq:{job_id}"})
                _check(listed, 200, "reading the job")
                job = listed.json()["data"][0]
                bar.update(total_files=max(job["total_files"], 1),
                           files_done=job.get("completed_files", 0) + job["failed_files"],
                           objects=job.get("nodes_written", 0), edges=job.get("edges_written", 0),
                           description=JOB_STATUS_NAMES.get(job["status"], str(job["status"])))
                if job["status"] in FINISHED_STATUSES:
                    break
                time.sleep(POLL_SECONDS)
        tasks = client.get(f"/api/v2/file-upload/{job_id}/completed-tasks")
        _check(tasks, 200, "reading the job's files")
    finally:
        client.close()
    outcomes = refused + [_outcome(task) for task in tasks.json()["data"]]
    console.print(summary_table(outcomes, job["status"], job["status_message"], time.monotonic() - started))
    return job["status"] in SUCCESS_STATUSES and not refused
