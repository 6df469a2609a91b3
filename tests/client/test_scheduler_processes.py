"""Two service processes on one database schedule each occurrence of an event once."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.client.helpers import SESSIONS_ONLY, due_soon, wait_for
from tests.factories import unique
from tests.service import ServiceProcess

PASSWORD = "Scheduler-Test-Password-7"
EVENTS = 6


def test_two_processes_schedule_the_same_event_once(migrated_data_dir: Path) -> None:
    data_dir = migrated_data_dir
    first = ServiceProcess(data_dir, PASSWORD, HOUNDGRAPH_DATAPIPE_INTERVAL="0.1")
    second = ServiceProcess(data_dir, PASSWORD, HOUNDGRAPH_DATAPIPE_INTERVAL="0.1")
    try:
        admin = httpx.Client(base_url=first.url, timeout=60, headers={"Authorization": f"Bearer {first.login()}"})
        client = admin.post("/api/v2/clients", json={"name": unique("sched"), "type": "sharphound"}).json()["data"]
        # Due in a few seconds, all at once: both processes' loops are running when they fall due (each event's
        # next run is found by a child process: a loaded machine takes a few seconds for the six).
        rule = due_soon(10)
        events = [admin.post("/api/v2/events", json={"client_id": client["id"], "rrule": rule, **SESSIONS_ONLY})
                  .json()["data"] for _ in range(EVENTS)]
        due_at = events[0]["next_scheduled_at"]

        def all_rescheduled() -> bool:
            listed = admin.get("/api/v2/events", params={"client_id": f"eq:{client['id']}"}).json()["data"]
            return all(event["next_scheduled_at"] > due_at for event in listed)

        wait_for(all_rescheduled, timeout=60, what="both schedulers to pass the due time")
        jobs = admin.get("/api/v2/jobs", params={"client_id": f"eq:{client['id']}"}).json()["data"]
        assert sorted(job["event_id"] for job in jobs) == sorted(event["id"] for event in events)
        assert {job["execution_time"][:19] for job in jobs} == {due_at[:19]}
        admin.close()
    finally:
        second.stop()
        first.stop()
