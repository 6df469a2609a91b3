"""Upload API + datapipe, end to end: collector files are uploaded to a fresh service and timed from
`/file-upload/start` to the job's `complete`.

    .venv/bin/python bench/upload.py                      # the two lab collections in ../shared/data
    .venv/bin/python bench/upload.py --users 100000       # plus a synthetic users file of that many users

Prints, per data set: files, objects and edges written, wall time, objects/s and edges/s, and the machine.
"""

from __future__ import annotations

import argparse
import json
import platform
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from houndgraph.app import create_app
from houndgraph.settings import Settings, usable_cpus

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "sharphound"
PASSWORD = "Bench-Upload-Password-1!"
DOMAIN_SID = "S-1-5-21-1000000000-2000000000-3000000000"
RIGHTS = ("GenericAll", "WriteDacl", "WriteOwner", "GenericWrite", "AllExtendedRights", "ForceChangePassword")


def synthetic_users(path: Path, users: int, groups: int = 1000) -> None:
    """A SharpHound v6 users file: each user in a primary group, with six ACEs from groups (7 edges)."""
    with path.open("w") as out:
        out.write('{"data": [')
        for index in range(users):
            aces = [{"PrincipalSID": f"{DOMAIN_SID}-{1000 + (index * 7 + n) % groups}", "PrincipalType": "Group",
                     "RightName": right, "IsInherited": n % 2 == 0} for n, right in enumerate(RIGHTS)]
            record = {"Properties": {"domain": "BENCH.LOCAL", "name": f"USER{index}@BENCH.LOCAL",
                                     "domainsid": DOMAIN_SID, "enabled": True},
                      "PrimaryGroupSID": f"{DOMAIN_SID}-{1000 + index % groups}", "Aces": aces,
                      "ObjectIdentifier": f"{DOMAIN_SID}-{100000 + index}", "IsDeleted": False}
            out.write(("," if index else "") + json.dumps(record))
        meta = {"methods": 521215, "type": "users", "count": users, "version": 6}
        out.write(f'], "meta": {json.dumps(meta)}}}')


def machine() -> str:
    return (f"machine: {platform.machine()}, {usable_cpus()} CPUs, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def served(app: Any, port: int) -> Iterator[None]:
    """`app` served by uvicorn on `port` in a background thread, until the block ends."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield
    finally:
        server.should_exit = True
        thread.join(timeout=60)


@contextmanager
def service(data_dir: Path) -> Iterator[httpx.Client]:
    """A fresh service on `data_dir` in a background thread, and a client logged in as its admin."""
    settings = Settings(data_dir=data_dir, port=free_port(), admin_password=PASSWORD, datapipe_interval=0.05)
    with served(create_app(settings), settings.port), \
            httpx.Client(base_url=f"http://127.0.0.1:{settings.port}", timeout=600) as http:
        token = http.post("/api/v2/login", json={"login_method": "secret", "username": "admin",
                                                 "secret": PASSWORD}).json()["data"]["session_token"]
        http.headers["Authorization"] = f"Bearer {token}"
        yield http


def upload_all(http: httpx.Client, paths: list[Path], poll: float = 0.05,
               on_ingested: Callable[[], None] = lambda: None) -> tuple[dict, dict[str, float]]:
    """Upload `paths` as one job; the job and the seconds spent uploading, ingesting and analysing, read from the
    job's status every `poll` seconds (each read costs the service a request: poll a long upload less often).
    `on_ingested` runs once, when the job is first seen past ingesting."""
    started = time.monotonic()
    job_id = http.post("/api/v2/file-upload/start").json()["data"]["id"]
    for path in paths:
        content_type = "application/zip" if path.suffix == ".zip" else "application/json"
        with path.open("rb") as body:
            response = http.post(f"/api/v2/file-upload/{job_id}", content=body.read(),
                                 headers={"Content-Type": content_type, "X-File-Upload-Name": path.name})
        response.raise_for_status()
    http.post(f"/api/v2/file-upload/{job_id}/end").raise_for_status()
    uploaded = analysing = time.monotonic()
    ingested = False
    while (job := http.get("/api/v2/file-upload", params={"id": f"eq:{job_id}"}).json()["data"][0])["status"] \
            not in (2, 3, 4, 5, 8):
        if job["status"] != 7:
            analysing = time.monotonic()
        elif not ingested:
            ingested = True
            on_ingested()
        time.sleep(poll)
    if not ingested:
        on_ingested()
    done = time.monotonic()
    return job, {"total": done - started, "upload": uploaded - started, "ingest": analysing - uploaded,
                 "analysis": done - analysing}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=0, help="also upload a synthetic users file this large")
    args = parser.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory(prefix="hgb-", dir="/tmp") as tmp:
        data_sets = [("v6-adcs-lab adcs.zip", [DATA / "v6-adcs-lab" / "adcs.zip"]),
                     ("v6-testlab JSON files", sorted((DATA / "v6-testlab").glob("*.json")))]
        if args.users:
            synthetic = Path(tmp) / "users.json"
            synthetic_users(synthetic, args.users)
            data_sets.append((f"synthetic users ({args.users:,}, {synthetic.stat().st_size / 1e6:.0f} MB)",
                              [synthetic]))
        with service(Path(tmp) / "data") as http:
            for name, paths in data_sets:
                job, seconds = upload_all(http, paths)
                ingest = max(seconds["ingest"], 1e-3)
                print(f"{name}: status {job['status']}, {job['total_files']} files, "
                      f"{job['nodes_written']:,} objects, {job['edges_written']:,} edges; "
                      f"{seconds['total']:.2f} s in all = upload {seconds['upload']:.2f} + ingest {ingest:.2f} "
                      f"({job['nodes_written'] / ingest:,.0f} objects/s, {job['edges_written'] / ingest:,.0f} "
                      f"edges/s) + analysis {seconds['analysis']:.2f}")


if __name__ == "__main__":
    main()
