"""`houndgraph serve` as a real subprocess on a data directory, for tests of the service as operators run it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

from tests.conftest import _free_port


class ServiceProcess:
    """Starts the service and waits until it answers; `stop` is a Ctrl-C, `kill` a kill -9."""

    def __init__(self, data_dir: Path, password: str, *, serve_args: Sequence[str] = (), **extra_env: str) -> None:
        self.port = _free_port()
        self.password = password
        env = {**os.environ, "HOUNDGRAPH_DATA_DIR": str(data_dir), "HOUNDGRAPH_PORT": str(self.port),
               "HOUNDGRAPH_ADMIN_PASSWORD": password, **extra_env}
        self.process = subprocess.Popen([sys.executable, "-m", "houndgraph.cli", "serve", *serve_args], env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{self.port}"
        self.http = httpx.Client(base_url=self.url, timeout=120)
        deadline = time.monotonic() + 120
        while True:
            try:
                if self.http.get("/api/version", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            assert self.process.poll() is None and time.monotonic() < deadline, "the service did not start"
            time.sleep(0.2)

    def login(self) -> str:
        response = self.http.post("/api/v2/login", json={"login_method": "secret", "username": "admin",
                                                         "secret": self.password})
        assert response.status_code == 200, response.text
        return response.json()["data"]["session_token"]

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        self.http.close()

    def stop(self) -> None:
        self.http.close()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            self.process.wait(timeout=120)
