"""`kill -9` of the real service in the middle of an ingest: the accepted file is not lost, the job
completes after a restart, and the graph is the one a clean ingest of the same file gives."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import psycopg

from tests.service import ServiceDirectory, ServiceProcess

DOMAIN_SID = "S-1-5-21-1111111111-2222222222-3333333333"
USERS = 20_000  # 8 batches of the datapipe: the kill at the first write lands well before the end
GROUPS = 200
RIGHTS = ("GenericAll", "WriteDacl", "WriteOwner", "GenericWrite", "AllExtendedRights", "ForceChangePassword")


def synthetic_users(path: Path) -> None:
    """A SharpHound v6 users file: each user in a primary group, with six ACEs from groups."""
    with path.open("w") as out:
        out.write('{"data": [')
        for index in range(USERS):
            rid = 10_000 + index
            aces = [{"PrincipalSID": f"{DOMAIN_SID}-{1000 + (index * 7 + n) % GROUPS}", "PrincipalType": "Group",
                     "RightName": right, "IsInherited": n % 2 == 0} for n, right in enumerate(RIGHTS)]
            record = {
                "Properties": {"domain": "CRASH.LOCAL", "name": f"USER{index}@CRASH.LOCAL",
                               "domainsid": DOMAIN_SID, "enabled": True, "description": "x" * 40},
                "AllowedToDelegate": [], "HasSIDHistory": [], "SpnTargets": [],
                "PrimaryGroupSID": f"{DOMAIN_SID}-{1000 + index % GROUPS}", "Aces": aces,
                "ObjectIdentifier": f"{DOMAIN_SID}-{rid}", "IsDeleted": False, "IsACLProtected": False,
            }
            out.write(("," if index else "") + json.dumps(record))
        meta = {"methods": 521215, "type": "users", "count": USERS, "version": 6}
        out.write(f'], "meta": {json.dumps(meta)}}}')


class Uploads:
    """The service, logged in as admin, with the upload-job helpers the crash test needs."""

    def __init__(self, service: ServiceProcess) -> None:
        self.http: httpx.Client = service.http
        self.http.headers["Authorization"] = f"Bearer {service.login()}"

    def job(self, job_id: int) -> dict[str, Any]:
        return self.http.get("/api/v2/file-upload", params={"id": f"eq:{job_id}"}).json()["data"][0]

    def ingest(self, path: Path) -> int:
        job_id = self.http.post("/api/v2/file-upload/start").json()["data"]["id"]
        response = self.http.post(f"/api/v2/file-upload/{job_id}", content=path.read_bytes(),
                                  headers={"Content-Type": "application/json", "X-File-Upload-Name": path.name})
        assert response.status_code == 202, response.text
        assert self.http.post(f"/api/v2/file-upload/{job_id}/end").status_code == 200
        return job_id

    def wait_for_job(self, job_id: int, timeout: float = 300) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while (job := self.job(job_id))["status"] not in (2, 3, 4, 5, 8):
            assert time.monotonic() < deadline, job
            time.sleep(0.2)
        return job



def connect(data_dir: Path) -> psycopg.Connection:
    """The embedded server outlives a killed service; reach it through its postmaster.pid."""
    lines = (data_dir / "pgdata" / "postmaster.pid").read_text().splitlines()
    return psycopg.connect(host=lines[4], port=int(lines[3]), user="postgres", dbname="houndgraph", autocommit=True)


def graph_fingerprint(conn: psycopg.Connection) -> tuple[int, int, str, str]:
    """Counts and digests of every node (object id, kinds) and edge (ends' object ids, kind)."""
    nodes = conn.execute(
        "SELECT count(*), md5(string_agg((n.properties->>'objectid') || ':' || "
        "(SELECT string_agg(k.name, ',' ORDER BY k.name) FROM kind k WHERE k.id = ANY(n.kind_ids)), '|' "
        "ORDER BY n.properties->>'objectid')) FROM node n").fetchone()
    edges = conn.execute(
        "SELECT count(*), md5(string_agg((s.properties->>'objectid') || '-' || k.name || '->' || "
        "(e.properties->>'objectid'), '|' ORDER BY s.properties->>'objectid', k.name, e.properties->>'objectid')) "
        "FROM edge JOIN node s ON s.id = edge.start_id JOIN node e ON e.id = edge.end_id "
        "JOIN kind k ON k.id = edge.kind_id").fetchone()
    return nodes[0], edges[0], nodes[1], edges[1]


def test_kill_9_during_ingest_loses_nothing(service: ServiceDirectory, tmp_path: Path) -> None:
    data_dir = service.data_dir
    collection = tmp_path / "users.json"
    synthetic_users(collection)

    first = service.running()
    job_id = Uploads(first).ingest(collection)
    with connect(data_dir) as conn:
        deadline = time.monotonic() + 60
        while conn.execute("SELECT state FROM ingest_tasks WHERE job_id = %s", (job_id,)).fetchone()[0] != "running":
            assert time.monotonic() < deadline, "ingest never started"
            time.sleep(0.05)
        # Wait until batches are being written (a COPY or an upsert into the graph is running), then kill
        # mid-transaction. Whatever the store's statements are, a write to the graph starts with one of them.
        while not conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE state <> 'idle' AND datname = 'houndgraph' "
                "AND (query ILIKE 'COPY %%' OR query ILIKE '%%INSERT INTO node%%' "
                "OR query ILIKE '%%INSERT INTO edge%%')"
        ).fetchone()[0]:
            assert time.monotonic() < deadline, "no batch was written"
            time.sleep(0.01)
        first.kill()
        state, attempts, upload_id = conn.execute(
            "SELECT state, attempts, upload_id FROM ingest_tasks WHERE job_id = %s", (job_id,)).fetchone()
        assert (state, attempts) == ("running", 1), "the kill must land in the middle of the ingest"
        kept = "SELECT count(*) FROM upload_chunks WHERE upload_id = %s"
        assert conn.execute(kept, (upload_id,)).fetchone()[0] > 0, "the accepted file is still kept"
        assert graph_fingerprint(conn)[:2] == (0, 0), "nothing of the half-read file is in the graph"

    second = Uploads(service.start())
    finished = second.wait_for_job(job_id)
    assert finished["status"] == 2, finished
    assert (finished["completed_files"], finished["failed_files"]) == (1, 0)
    with connect(data_dir) as conn:
        assert conn.execute("SELECT attempts FROM ingest_tasks WHERE job_id = %s", (job_id,)).fetchone() == (2,)
        recovered = graph_fingerprint(conn)
        assert conn.execute(kept, (upload_id,)).fetchone() == (0,), "the file is deleted once read"

    # The same file, ingested cleanly into an empty graph.
    assert second.http.post("/api/v2/clear-database", json={"deleteCollectedGraphData": True}).status_code == 204
    with connect(data_dir) as conn:
        deadline = time.monotonic() + 60
        while conn.execute("SELECT count(*) FROM purge_requests").fetchone()[0]:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert graph_fingerprint(conn)[:2] == (0, 0)
    clean_job = second.ingest(collection)
    assert second.wait_for_job(clean_job)["status"] == 2
    with connect(data_dir) as conn:
        clean = graph_fingerprint(conn)
    assert recovered == clean
    assert recovered[0] >= USERS + GROUPS and recovered[1] >= USERS * (1 + len(RIGHTS))
