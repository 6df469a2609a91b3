"""The service as an operator runs it: `houndgraph serve` processes on one data directory."""

from __future__ import annotations

from tests.service import ServiceDirectory


def test_restart_keeps_data_and_a_second_process_attaches(new_service: ServiceDirectory) -> None:
    # The first start on an empty data directory: initdb, the server's settings, every migration.
    service = new_service
    first = service.running()
    try:
        token = first.login()
        second = service.start()
        try:
            # Same database and signing key: a session made by one process is valid in the other.
            assert second.self_status(token) == 200
        finally:
            second.stop()
        assert first.self_status(token) == 200, "stopping the second process must not stop the database"
    finally:
        first.stop()
    assert not service.postgres_running(), "the embedded PostgreSQL stops with the last process"

    again = service.start()
    assert again.self_status(token) == 200, "sessions survive a restart"
    again.login()
