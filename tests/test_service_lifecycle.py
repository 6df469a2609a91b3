"""The service as an operator runs it: `houndgraph serve` processes on one data directory."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import _free_port

PASSWORD = "Lifecycle-Test-Password-7"


class Service:
    def __init__(self, data_dir: Path) -> None:
        self.port = _free_port()
        env = {**os.environ, "HOUNDGRAPH_DATA_DIR": str(data_dir), "HOUNDGRAPH_PORT": str(self.port),
               "HOUNDGRAPH_ADMIN_PASSWORD": PASSWORD}
        self.process = subprocess.Popen([sys.executable, "-m", "houndgraph.cli", "serve"], env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 90
        while True:
            try:
                if httpx.get(f"{self.url}/api/version", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the service did not start:\n{self.process.stdout.read()}")
            time.sleep(0.2)

    def login(self) -> str:
        response = httpx.post(f"{self.url}/api/v2/login", json={
            "login_method": "secret", "username": "admin", "secret": PASSWORD})
        assert response.status_code == 200, response.text
        return response.json()["data"]["session_token"]

    def self_status(self, token: str) -> int:
        return httpx.get(f"{self.url}/api/v2/self", headers={"Authorization": f"Bearer {token}"}).status_code

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            self.process.wait(timeout=60)


def _postgres_running(data_dir: Path) -> bool:
    return (data_dir / "pgdata" / "postmaster.pid").exists()


@pytest.fixture
def service_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = Path(tmp_path_factory.mktemp("svc", numbered=True))
    yield path


def test_restart_keeps_data_and_a_second_process_attaches(service_dir: Path) -> None:
    first = Service(service_dir)
    try:
        token = first.login()
        second = Service(service_dir)
        try:
            # Same database and signing key: a session made by one process is valid in the other.
            assert second.self_status(token) == 200
        finally:
            second.stop()
        assert first.self_status(token) == 200, "stopping the second process must not stop the database"
    finally:
        first.stop()
    assert not _postgres_running(service_dir), "the embedded PostgreSQL stops with the last process"

    again = Service(service_dir)
    try:
        assert again.self_status(token) == 200, "sessions survive a restart"
        again.login()
    finally:
        again.stop()
