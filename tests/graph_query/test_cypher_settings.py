"""The `disable_cypher_complexity_limit` setting: off, a query the reference's heuristic scores too
complex is refused; on, the same query runs."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from houndgraph.db import Database
from houndgraph.settings import Settings
from tests.conftest import LiveServer, another_server

URL = "/api/v2/graphs/cypher"
TOO_COMPLEX = "cypher query is too complex and is likely to result in poor or unstable database performance"
# One undirected, unbounded relationship: fitness -7, at the reference's bound.
RUNAWAY = "MATCH (n)-[*]-(m) RETURN count(*) AS trails"


@pytest.fixture(scope="module")
def unlimited_server(server_settings: Settings, database: Database) -> Iterator[LiveServer]:
    with another_server(server_settings, database, disable_cypher_complexity_limit=True) as server:
        yield server


@pytest.fixture
def unlimited(unlimited_server: LiveServer, admin_token: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=unlimited_server.base_url, timeout=60,
                      headers={"Authorization": f"Bearer {admin_token}"}) as http:
        yield http


def test_the_limit_is_on_by_default(admin: httpx.Client, graph: dict[str, int]) -> None:
    assert Settings().disable_cypher_complexity_limit is False
    response = admin.post(URL, json={"query": RUNAWAY})
    assert response.status_code == 400
    assert response.json()["errors"][0]["message"] == TOO_COMPLEX


def test_the_setting_lets_the_query_run(unlimited: httpx.Client, graph: dict[str, int]) -> None:
    response = unlimited.post(URL, json={"query": RUNAWAY})
    assert response.status_code == 200, response.text
    (literal,) = response.json()["data"]["literals"]
    assert literal["key"] == "trails" and literal["value"] > 0


def test_the_setting_reads_its_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOUNDGRAPH_DISABLE_CYPHER_COMPLEXITY_LIMIT", "true")
    monkeypatch.setenv("HOUNDGRAPH_ENABLE_CYPHER_MUTATIONS", "true")
    settings = Settings()
    assert settings.disable_cypher_complexity_limit is True and settings.enable_cypher_mutations is True
