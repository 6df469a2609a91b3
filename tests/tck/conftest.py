"""The TCK runs against a server of its own with mutations enabled, one per worker: a package fixture, kept while the
worker runs TCK scenarios one after the other (tests/conftest.py hands them out first), whichever of the four modules
they come from; a worker given another test in between starts it again after.

Its complexity guard is off (`disable_cypher_complexity_limit`, the reference's own switch): the guard is the
reference's policy, matched rule for rule (validate.fitness, tests/graph/cypher), and refuses valid Cypher such as
`MATCH (n)-->(a)-->(b) RETURN b`; the TCK measures whether what runs answers what Neo4j answers.

Its datapipe polls at the service's default interval, not the test server's 0.2 s: the TCK uploads nothing, and each
tick is a handful of queries that would only compete with the scenarios for the CPU."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from houndgraph.db import Database
from houndgraph.settings import Settings
from tests.conftest import ADMIN_PASSWORD, LiveServer, another_server, login
from tests.tck.runner import Runner


@pytest.fixture(scope="package")
def tck_runner(server_settings: Settings, database: Database, live_server: LiveServer) -> Iterator[Runner]:
    with another_server(server_settings, database, enable_cypher_mutations=True,
                        disable_cypher_complexity_limit=True,
                        datapipe_interval=Settings.model_fields["datapipe_interval"].default) as server, \
            httpx.Client(base_url=server.base_url, timeout=60) as http:
        http.headers["Authorization"] = f"Bearer {login(http, 'admin', ADMIN_PASSWORD)}"
        runner = Runner(http, database)
        try:
            yield runner
        finally:
            runner.reset()
            runner.close()
