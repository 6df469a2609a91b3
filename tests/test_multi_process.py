"""More than one process on one PostgreSQL (issue #11): two services side by side share sessions, accept
uploads on either and run one datapipe between them; `serve --workers N` adds its workers' metrics up."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
import psycopg
import pytest

from houndgraph.settings import usable_cpus
from houndgraph.worker.loop_repository import DATAPIPE_LOCK_ID
from tests.conftest import TLS
from tests.file_upload.helpers import TESTLAB, end_job, start_job, upload_path, wait_for_job
from tests.service import ServiceProcess

PASSWORD = "Two-Process-Password-7"
COMPLETE = 2


def database_url(data_dir: Path) -> str:
    """The embedded server's socket, read from postmaster.pid (attaching through the wheel would make this
    test one of the server's holders)."""
    lines = (data_dir / "pgdata" / "postmaster.pid").read_text().splitlines()
    return f"postgresql://postgres@/houndgraph?host={lines[4]}&port={lines[3]}"


class LockWatcher(threading.Thread):
    """Samples how many backends hold the datapipe lock at once, until stopped."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.most_holders = 0
        self.samples = 0
        self.stopping = threading.Event()

    def run(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as conn:
            while not self.stopping.is_set():
                (holders,) = conn.execute(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                    " AND ((classid::bigint << 32) | objid::bigint) = %s", (DATAPIPE_LOCK_ID,)).fetchone()
                self.most_holders = max(self.most_holders, holders)
                self.samples += 1
                self.stopping.wait(0.01)


@pytest.fixture
def two_services(migrated_data_dir: Path) -> Iterator[tuple[Path, ServiceProcess, ServiceProcess]]:
    data_dir = migrated_data_dir
    first = ServiceProcess(data_dir, PASSWORD, HOUNDGRAPH_DATAPIPE_INTERVAL="0.05")
    try:
        second = ServiceProcess(data_dir, PASSWORD, HOUNDGRAPH_DATAPIPE_INTERVAL="0.05")
        try:
            yield data_dir, first, second
        finally:
            second.stop()
    finally:
        first.stop()


def authorized(service: ServiceProcess, token: str) -> httpx.Client:
    return httpx.Client(base_url=service.url, timeout=120, headers={"Authorization": f"Bearer {token}"},
                        verify=TLS)


def test_two_processes_share_sessions_uploads_and_one_datapipe(
        two_services: tuple[Path, ServiceProcess, ServiceProcess]) -> None:
    data_dir, first, second = two_services
    token = first.login()
    a, b = authorized(first, token), authorized(second, token)
    assert b.get("/api/v2/self").status_code == 200, "a session made by one process is valid in the other"

    watcher = LockWatcher(database_url(data_dir))
    watcher.start()
    job_id = start_job(a)["id"]
    upload_path(b, job_id, TESTLAB / "users.json")
    upload_path(a, job_id, TESTLAB / "groups.json")
    upload_path(b, job_id, TESTLAB / "computers.json")
    end_job(b, job_id)
    finished = wait_for_job(a, job_id, timeout=300)
    watcher.stopping.set()
    watcher.join(timeout=30)
    assert finished["status"] == COMPLETE, finished
    assert watcher.samples > 0 and watcher.most_holders == 1, "exactly one process runs the datapipe at a time"
    with psycopg.connect(database_url(data_dir)) as conn:
        attempts = [row[0] for row in conn.execute("SELECT attempts FROM ingest_tasks WHERE job_id = %s", (job_id,))]
    assert attempts == [1, 1, 1], "each file was read once, by one datapipe"

    other = authorized(second, second.login())
    assert b.post("/api/v2/logout").status_code == 200
    assert a.get("/api/v2/self").status_code == 401, "a session ended in one process is ended in the other"
    assert other.get("/api/v2/self").status_code == 200


def _requests_to(metrics: str, route: str) -> float:
    wanted = f'route="{route}"'
    return sum(float(line.rsplit(" ", 1)[1]) for line in metrics.splitlines()
               if line.startswith("houndgraph_http_requests_total{") and wanted in line)


def test_serve_with_workers_answers_on_one_port_and_adds_their_metrics_up(migrated_data_dir: Path) -> None:
    service = ServiceProcess(migrated_data_dir, PASSWORD, serve_args=["--workers", "2"])
    try:
        before = _requests_to(service.http.get("/metrics").text, "/api/v2/health")
        for _ in range(20):  # a new connection each time: the kernel spreads them over the workers
            with httpx.Client(base_url=service.url, timeout=60, verify=TLS) as fresh:
                assert fresh.get("/api/v2/health").status_code == 200
        after = _requests_to(service.http.get("/metrics").text, "/api/v2/health")
        assert after - before == 20
        token = service.login()
        for _ in range(5):
            with httpx.Client(base_url=service.url, timeout=60, verify=TLS) as fresh:
                assert fresh.get("/api/v2/self", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    finally:
        service.stop()


def test_serve_starts_one_worker_per_core_by_default(migrated_data_dir: Path) -> None:
    service = ServiceProcess(migrated_data_dir, PASSWORD, workers=None)
    try:
        assert service.self_status(service.login()) == 200
        commands = [" ".join(child.cmdline()) for child in psutil.Process(service.process.pid).children()]
        workers = [command for command in commands if "spawn_main" in command]
        assert len(workers) == usable_cpus(), commands
        assert f"with {usable_cpus()} worker(s)" in service.log.read_text()
    finally:
        service.stop()
