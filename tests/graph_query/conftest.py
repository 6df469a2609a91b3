"""Fixtures of the graph query tests: the hand-drawn graph, and a server that allows Cypher mutations."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from houndgraph.db import Database
from houndgraph.settings import Settings
from tests.conftest import TLS, LiveServer, another_server
from tests.graph.cypher.conftest import graph  # noqa: F401 - the small hand-drawn graph


@pytest.fixture(scope="module")
def mutable_server(server_settings: Settings, database: Database) -> Iterator[LiveServer]:
    with another_server(server_settings, database, enable_cypher_mutations=True) as server:
        yield server


@pytest.fixture
def writer(mutable_server: LiveServer, admin_token: str) -> Iterator[httpx.Client]:
    """The administrator (who holds GraphDBMutate) on the server that allows mutations."""
    with httpx.Client(base_url=mutable_server.base_url, timeout=60, verify=TLS,
                      headers={"Authorization": f"Bearer {admin_token}"}) as http:
        yield http
