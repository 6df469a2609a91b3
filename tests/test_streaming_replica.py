"""Past one machine on PostgreSQL's own replication: a real primary and a real streaming replica (the embedded
server's binaries), and two `houndgraph serve` processes with data directories of their own (no shared file system)
on that primary, both reading the graph from the replica."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.file_upload.helpers import TESTLAB, end_job, start_job, upload_path, wait_for_job
from tests.replication import StreamingCluster
from tests.service import ServiceProcess

PASSWORD = "Replica-Test-Password-7"
COMPLETE = 2
# Graph tables: only graph reads scan them (the replica takes no writes, and the services read nothing else there).
GRAPH_SCANS = ("SELECT coalesce(sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)), 0) FROM pg_stat_user_tables "
               "WHERE relname IN ('node', 'edge')")


@pytest.fixture
def cluster() -> Iterator[StreamingCluster]:
    made = StreamingCluster()
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def two_hosts(cluster: StreamingCluster, tmp_path: Path) -> Iterator[tuple[ServiceProcess, ServiceProcess]]:
    # What two hosts share: the database and the signing key; each has a data directory of its own.
    shared = {"HOUNDGRAPH_DATABASE_URL": cluster.primary.url(), "HOUNDGRAPH_READ_DATABASE_URL": cluster.replica.url(),
              "HOUNDGRAPH_SECRET_KEY": "r" * 48, "HOUNDGRAPH_DATAPIPE_INTERVAL": "0.1", "HOUNDGRAPH_WARM_UP": "false"}
    for host in ("host-a", "host-b"):
        (tmp_path / host).mkdir()
    first = ServiceProcess(tmp_path / "host-a", PASSWORD, **shared)
    try:
        second = ServiceProcess(tmp_path / "host-b", PASSWORD, **shared)
        try:
            yield first, second
        finally:
            second.stop()
    finally:
        first.stop()


def graph_scans(cluster: StreamingCluster) -> int:
    with psycopg.connect(cluster.replica.conninfo(), autocommit=True) as conn:
        row = conn.execute(GRAPH_SCANS).fetchone()
    assert row is not None
    return int(row[0])


USERS = [record["ObjectIdentifier"] for record in json.loads((TESTLAB / "users.json").read_text())["data"]]


def count_users(http: httpx.Client) -> int:
    """How many of the uploaded users the graph holds."""
    answer = http.post("/api/v2/graphs/cypher",
                       json={"query": f"MATCH (n:User) WHERE n.objectid IN {json.dumps(USERS)} RETURN n"})
    assert answer.status_code == 200, answer.text
    return len(answer.json()["data"]["nodes"])


class Reader(threading.Thread):
    """Graph reads one after another through a service until stopped; every status is kept."""

    def __init__(self, http: httpx.Client) -> None:
        super().__init__(daemon=True)
        self.http = http
        self.statuses: list[int] = []
        self.failures: list[str] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                answer = self.http.post("/api/v2/graphs/cypher",
                                        json={"query": "MATCH (n:Group)-[:MemberOf]->(m) RETURN n, m"})
                self.statuses.append(answer.status_code)
                if answer.status_code != 200:
                    self.failures.append(answer.text[:300])
            except httpx.HTTPError as error:
                self.statuses.append(0)
                self.failures.append(repr(error))


def test_upload_through_one_host_read_through_the_other_from_the_replica_which_may_stop(
        cluster: StreamingCluster, two_hosts: tuple[ServiceProcess, ServiceProcess]) -> None:
    first, second = two_hosts
    cluster.wait_for_streaming()
    assert cluster.replica_in_recovery(), "the replica is a standby"
    token = first.login()
    a = httpx.Client(base_url=first.url, timeout=120, headers={"Authorization": f"Bearer {token}"})
    b = httpx.Client(base_url=second.url, timeout=120, headers={"Authorization": f"Bearer {token}"})

    # Uploaded through one host; its files are in the database, so whichever host's datapipe runs can read them.
    job_id = start_job(a)["id"]
    for name in ("users.json", "groups.json", "computers.json", "domains.json"):
        upload_path(a, job_id, TESTLAB / name)
    end_job(a, job_id)
    finished = wait_for_job(a, job_id, timeout=120)
    assert finished["status"] == COMPLETE, finished

    # Read through the other host at once: the replica has replayed the analysis's commit before it answers.
    scans_before = graph_scans(cluster)
    expected = len(USERS)
    assert count_users(b) == expected
    for _ in range(9):
        assert count_users(b) == expected
    deadline = time.monotonic() + 40  # a backend reports its statistics within about ten seconds of going idle
    while graph_scans(cluster) < scans_before + 10:
        assert time.monotonic() < deadline, "the replica did not serve the graph reads"
        time.sleep(0.2)

    # The replica stops under a stream of reads: none fails, the primary answers them.
    reader = Reader(b)
    reader.start()
    time.sleep(1.0)
    cluster.replica.stop("fast")
    time.sleep(1.5)
    reader.stopping.set()
    reader.join(timeout=60)
    assert reader.statuses and set(reader.statuses) == {200}, (reader.failures, second.logged_errors())
    assert count_users(b) == expected
    assert count_users(a) == expected
