"""A path search that passes its work budget answers as the reference answers a query that timed out: 500
with the reference's error body and message, on the Cypher route and on both path routes (issue #14)."""

from __future__ import annotations

import httpx
import pytest

from houndgraph.db import Database
from tests.graph.test_path_budget import layered_graph

CYPHER_TIMED_OUT = "transaction timed out, reduce query complexity or try again later"
REQUEST_TIMED_OUT = "request timed out"


def _assert_reference_error(response: httpx.Response, message: str) -> None:
    assert response.status_code == 500, response.text
    body = response.json()
    assert list(body) == ["http_status", "timestamp", "request_id", "errors"]
    assert body["http_status"] == 500
    assert body["request_id"] == response.headers["RequestID"]
    assert body["errors"] == [{"context": "", "message": message}]


@pytest.fixture
def layered(empty_graph: Database) -> tuple[str, str]:
    """Object ids of two nodes joined by 262 144 shortest paths: more than a search may enumerate."""
    source, target = layered_graph(empty_graph)
    return f"LAYERED-{source}", f"LAYERED-{target}"


def test_all_shortest_paths_over_the_budget_answer_the_reference_timeout(admin: httpx.Client,
                                                                         layered: tuple[str, str]) -> None:
    source, target = layered
    pattern = f"(s {{objectid: '{source}'}})-[*1..]->(t {{objectid: '{target}'}})"
    response = admin.post("/api/v2/graphs/cypher", json={"query": f"MATCH p=allShortestPaths({pattern}) RETURN p"})
    _assert_reference_error(response, CYPHER_TIMED_OUT)
    # One shortest path is within the budget.
    one = admin.post("/api/v2/graphs/cypher", json={"query": f"MATCH p=shortestPath({pattern}) RETURN p"})
    assert one.status_code == 200
    assert len(one.json()["data"]["nodes"]) == 11


@pytest.mark.parametrize("route", ["/api/v2/graphs/shortest-path", "/api/v2/pathfinding"])
def test_path_routes_over_the_budget_answer_the_reference_timeout(admin: httpx.Client, layered: tuple[str, str],
                                                                  route: str) -> None:
    source, target = layered
    response = admin.get(route, params={"start_node": source, "end_node": target})
    _assert_reference_error(response, REQUEST_TIMED_OUT)
    # A nearer pair has few enough paths (4 x 4 through the first two layers).
    near = admin.get(route, params={"start_node": source, "end_node": "LAYERED-10"})
    assert near.status_code == 200


@pytest.mark.parametrize("route", ["/api/v2/graphs/shortest-path", "/api/v2/pathfinding"])
def test_a_search_cancelled_by_the_request_deadline_answers_request_timed_out(
        admin: httpx.Client, database: Database, layered: tuple[str, str], route: str) -> None:
    """PostgreSQL cancels a search statement still running when the deadline (`Prefer: wait=1`) passes: the
    route answers the reference's timeout, not an internal error. Here the search cannot finish in time
    because another transaction holds the edge table."""
    source, target = layered
    with database.connect_raw() as blocker:
        blocker.execute("LOCK TABLE edge IN ACCESS EXCLUSIVE MODE")
        response = admin.get(route, params={"start_node": source, "end_node": "LAYERED-10"},
                             headers={"Prefer": "wait=1"})
        blocker.rollback()
    _assert_reference_error(response, REQUEST_TIMED_OUT)
    # The same search, unhindered, answers.
    assert admin.get(route, params={"start_node": source, "end_node": "LAYERED-10"}).status_code == 200
