"""Every way an upload is refused, with the reference's status and message, and nothing left on disk."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from houndgraph.db import Database
from houndgraph.file_upload.storage import INCOMING_FOLDER
from houndgraph.settings import Settings
from tests.auth.signing import signed_headers
from tests.conftest import LiveServer, another_server
from tests.factories import account
from tests.file_upload.helpers import (
    TESTLAB,
    end_job,
    error_messages,
    job,
    start_job,
    upload,
    wait_for_job,
    zipped,
)
from tests.user.helpers import assert_error

CONTENT_TYPE_REFUSED = "Content type must be application/json or application/zip"
META = {"type": "users", "version": 6, "methods": 0, "count": 0}


def stored_files(settings: Settings, job_id: int) -> list[Path]:
    """What a refused upload might have left on disk: the spooled body being checked, or a copy of the job's files."""
    folders = [settings.uploads_dir.resolve() / folder for folder in (INCOMING_FOLDER, str(job_id))]
    return sorted(path for folder in folders if folder.exists() for path in folder.iterdir())


@pytest.fixture
def job_id(admin: httpx.Client) -> int:
    return start_job(admin)["id"]


@pytest.mark.parametrize("content_type", [None, "text/plain", "multipart/form-data; boundary=x", "application/xml"])
def test_only_json_and_zip_content_types_are_accepted(admin: httpx.Client, job_id: int,
                                                      content_type: str | None) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    response = admin.post(f"/api/v2/file-upload/{job_id}", content=b"{}", headers=headers)
    assert_error(response, 400, CONTENT_TYPE_REFUSED)


@pytest.mark.parametrize("content_type", ["application/json; charset=utf-8", "application/x-zip-compressed",
                                          "application/zip-compressed", "APPLICATION/ZIP"])
def test_every_accepted_content_type_is_understood(admin: httpx.Client, job_id: int, content_type: str) -> None:
    body = (TESTLAB / "ous.json").read_bytes()
    if "zip" in content_type.lower():
        body = zipped({"ous.json": body})
    assert upload(admin, job_id, body, content_type).status_code == 202


def test_the_content_type_is_checked_before_the_id(admin: httpx.Client) -> None:
    assert_error(upload(admin, "abc", b"{}", "text/plain"), 400, CONTENT_TYPE_REFUSED)  # type: ignore[arg-type]
    assert_error(upload(admin, "abc", b"{}"), 400, "id is malformed")  # type: ignore[arg-type]
    assert_error(upload(admin, "99999999999999999999", b"{}"), 400, "id is malformed")  # type: ignore[arg-type]


def test_unknown_jobs_are_404(admin: httpx.Client) -> None:
    assert_error(upload(admin, 987654321, b"{}"), 404, "resource not found")
    assert_error(admin.post("/api/v2/file-upload/987654321/end"), 404, "resource not found")
    assert_error(admin.get("/api/v2/file-upload/987654321/completed-tasks"), 404, "resource not found")
    assert_error(admin.post("/api/v2/file-upload/x/end"), 400, "id is malformed")
    assert_error(admin.get("/api/v2/file-upload/x/completed-tasks"), 400, "id is malformed")


def test_a_job_that_is_not_running_takes_no_file_and_cannot_end_twice(admin: httpx.Client, job_id: int) -> None:
    end_job(admin, job_id)
    body = (TESTLAB / "ous.json").read_bytes()
    assert_error(upload(admin, job_id, body), 400, "job must be in running status to attach files")
    assert_error(admin.post(f"/api/v2/file-upload/{job_id}/end"), 400, "job must be in running status to end")
    wait_for_job(admin, job_id)


INVALID_DOCUMENTS = [
    (b"{}", ["no valid meta tag or data tag found"]),
    (b"[1, 2]", ["no valid meta tag or data tag found: the document is not a JSON object"]),
    (json.dumps({"data": []}).encode(), ["no valid meta tag found"]),
    (json.dumps({"meta": META}).encode(), ["no data tag found"]),
    (json.dumps({"meta": META, "data": {}}).encode(), ["invalid data tag found: data must be an array"]),
    (json.dumps({"meta": META, "data": [], "graph": {"nodes": []}}).encode(),
     ["request must use either the classic format (meta/data) or the generic format (graph), not both"]),
    (json.dumps({"graph": {}}).encode(), ["graph tag is empty. at least one of nodes: [] or edges: [] is required"]),
    (json.dumps({"graph": {"nodes": []}, "metadata": {"source_kind": "X", "extra": 1}}).encode(),
     ["metadata tag is invalid: additional property 'extra' is not allowed"]),
]


@pytest.mark.parametrize(("body", "messages"), INVALID_DOCUMENTS)
def test_validation_messages_of_the_reference(admin: httpx.Client, server_settings: Settings, job_id: int,
                                              body: bytes, messages: list[str]) -> None:
    assert error_messages(upload(admin, job_id, body), 400) == messages
    assert stored_files(server_settings, job_id) == []
    assert job(admin, job_id)["total_files"] == 0


def test_not_json_and_empty_bodies_are_named(admin: httpx.Client, job_id: int) -> None:
    assert assert_error(upload(admin, job_id, b'{"meta": {"type": "users"'), 400).startswith("not JSON")
    assert_error(upload(admin, job_id, b""), 400, "not JSON: the file is empty")


def test_each_opengraph_problem_is_its_own_error_entry(admin: httpx.Client, job_id: int) -> None:
    document = {"graph": {"nodes": [{"kinds": ["Person"]}, {"id": "b", "kinds": []}, {"id": "c", "kinds": ["A"]}],
                          "edges": [{"start": {"value": "c"}, "end": {"value": "b"}}]}}
    messages = error_messages(upload(admin, job_id, json.dumps(document).encode()), 400)
    assert len(messages) == 3, messages
    assert messages[0].startswith("nodes[0] schema validation failed") and "'id'" in messages[0]
    assert messages[1].startswith("nodes[1] schema validation failed") and "'kinds'" in messages[1]
    assert messages[2].startswith("edges[0] schema validation failed") and "'kind'" in messages[2]


def test_zip_problems(admin: httpx.Client, server_settings: Settings, job_id: int) -> None:
    not_a_zip = assert_error(upload(admin, job_id, b"plain text", "application/zip"), 400)
    assert not_a_zip.startswith("failed to find zip file header")
    no_json = error_messages(upload(admin, job_id, zipped({"readme.txt": b"hello"}), "application/zip"), 400)
    assert no_json == ["the zip archive holds no .json file",
                       "readme.txt: skipped, only .json files in an archive are ingested"]
    nested = assert_error(upload(admin, job_id, zipped({"inner.zip": zipped({"a.json": b"{}"})}),
                                 "application/zip"), 400)
    assert "nested archives are refused" in nested
    as_json = assert_error(upload(admin, job_id, zipped({"a.json": b"{}"})), 400)
    assert as_json.startswith("the body is a zip archive")
    assert stored_files(server_settings, job_id) == []


def test_a_zip_bomb_is_refused(admin: httpx.Client, server_settings: Settings, job_id: int) -> None:
    # 20 MB of spaces inside valid JSON deflates about a thousand to one: past the ratio limit.
    padding = b" " * (20 * 1024 * 1024)
    bomb = zipped({"users.json": b'{"meta": ' + json.dumps(META).encode() + b', "data": []' + padding + b"}"})
    assert len(bomb) < 100_000
    assert "zip bomb" in assert_error(upload(admin, job_id, bomb, "application/zip"), 400)
    assert stored_files(server_settings, job_id) == []


def test_a_read_only_user_cannot_upload_but_can_list(live_server: LiveServer, database: Database,
                                                     admin: httpx.Client, job_id: int) -> None:
    with account(live_server, database, "Read-Only") as reader:
        assert_error(reader.http.post("/api/v2/file-upload/start"), 403, "not authorized")
        assert_error(upload(reader.http, job_id, (TESTLAB / "ous.json").read_bytes()), 403, "not authorized")
        assert_error(reader.http.post(f"/api/v2/file-upload/{job_id}/end"), 403, "not authorized")
        assert reader.http.get("/api/v2/file-upload").status_code == 200
        assert reader.http.get("/api/v2/file-upload/accepted-types").status_code == 200
        assert reader.http.get(f"/api/v2/file-upload/{job_id}/completed-tasks").status_code == 200
    with account(live_server, database, "Upload-Only") as uploader:
        own = start_job(uploader.http)
        assert own["user_id"] == uploader.id
        assert own["user_email_address"] == f"{uploader.principal_name}@example.test"
        assert upload(uploader.http, own["id"], (TESTLAB / "ous.json").read_bytes()).status_code == 202
        end_job(uploader.http, own["id"])


def test_a_signed_upload_is_stored_from_the_spooled_body(admin: httpx.Client, job_id: int) -> None:
    token = admin.post("/api/v2/tokens", json={"token_name": "uploader"}).json()["data"]
    body = (TESTLAB / "groups.json").read_bytes()
    path = f"/api/v2/file-upload/{job_id}"
    headers = {**signed_headers(token["id"], token["key"], "POST", path, body), "Content-Type": "application/json"}
    with httpx.Client(base_url=str(admin.base_url), timeout=60) as anonymous:
        response = anonymous.post(path, content=body, headers=headers)
    assert response.status_code == 202, response.text
    end_job(admin, job_id)
    assert wait_for_job(admin, job_id)["status"] == 2


@pytest.fixture(scope="module")
def tiny_cap_server(server_settings: Settings, database: Database) -> Iterator[httpx.Client]:
    with another_server(server_settings, database, max_upload_bytes=4096) as server, \
            httpx.Client(base_url=server.base_url, timeout=60) as http:
        yield http


def test_a_body_over_the_upload_cap_is_413(tiny_cap_server: httpx.Client, admin_token: str,
                                           server_settings: Settings) -> None:
    tiny_cap_server.headers["Authorization"] = f"Bearer {admin_token}"
    job_id = start_job(tiny_cap_server)["id"]
    big = (TESTLAB / "users.json").read_bytes()
    assert len(big) > 4096
    assert_error(upload(tiny_cap_server, job_id, big), 413)

    def chunks() -> Iterator[bytes]:  # no Content-Length: the cap is enforced while reading
        for start in range(0, len(big), 1024):
            yield big[start:start + 1024]

    response = tiny_cap_server.post(f"/api/v2/file-upload/{job_id}", content=chunks(),
                                    headers={"Content-Type": "application/json"})
    assert_error(response, 413)
    assert stored_files(server_settings, job_id) == []
    small = (TESTLAB / "sessions.json").read_bytes()
    assert upload(tiny_cap_server, job_id, small).status_code == 202
