"""The service as an operator runs it: `houndgraph serve` processes on one data directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.service import ServiceProcess

PASSWORD = "Lifecycle-Test-Password-7"


class Service(ServiceProcess):
    def __init__(self, data_dir: Path) -> None:
        super().__init__(data_dir, PASSWORD)

    def self_status(self, token: str) -> int:
        return self.http.get("/api/v2/self", headers={"Authorization": f"Bearer {token}"}).status_code


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
