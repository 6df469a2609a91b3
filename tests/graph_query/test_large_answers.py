"""Large Cypher answers are shaped into JSON off the event loop, so one reader asking for thousands of rows back
to back does not stall every other request of the process for as long."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import pytest

from houndgraph.db import Database
from houndgraph.graph.cypher import execute
from houndgraph.graph_query import endpoints, service
from tests.conftest import LiveServer


def test_a_large_answer_is_shaped_in_a_background_thread_and_a_small_one_on_the_loop(
        admin: httpx.Client, live_server: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # The 2,000-node answers of one reader held the event loop for hundreds of ms each: the others' p99 passed 1 s.
    shaped_in: list[str] = []
    rendered_in: list[str] = []
    to_graph, response = service.to_graph, endpoints._response

    def watched_to_graph(*args: Any) -> Any:
        shaped_in.append(threading.current_thread().name)
        return to_graph(*args)

    def watched_response(*args: Any) -> Any:
        rendered_in.append(threading.current_thread().name)
        return response(*args)

    monkeypatch.setattr(service, "to_graph", watched_to_graph)
    monkeypatch.setattr(endpoints, "_response", watched_response)
    large = admin.post("/api/v2/graphs/cypher", json={"query": "UNWIND range(1, 2000) AS i RETURN i"})
    assert large.status_code == 200, large.text
    assert [literal["value"] for literal in large.json()["data"]["literals"]] == list(range(1, 2001))
    small = admin.post("/api/v2/graphs/cypher", json={"query": "UNWIND range(1, 3) AS i RETURN i"})
    assert small.status_code == 200, small.text
    assert len(small.json()["data"]["literals"]) == 3
    loop_thread = shaped_in[1]
    assert shaped_in[0].startswith("answer-shaping") and rendered_in[0].startswith("answer-shaping"), shaped_in
    assert not loop_thread.startswith("answer-shaping") and rendered_in[1] == loop_thread


def test_the_properties_of_a_large_answer_are_decoded_in_a_background_thread(
        admin: httpx.Client, writer: httpx.Client, empty_graph: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    # psycopg decoded the jsonb properties of a 2,000-node answer on the event loop: about 15 % of the request,
    # during which every other request of the process waited.
    created = writer.post("/api/v2/graphs/cypher", json={"query": (
        "UNWIND range(1, 600) AS i CREATE (:User {objectid: 'LARGE-' + toString(i), name: 'U' + toString(i), "
        "enabled: i % 2 = 0, tags: ['a', 'b']})")})
    assert created.status_code == 200, created.text
    decoded_in: list[str] = []
    decode = execute._decode_last_column

    def watched_decode(*args: Any) -> Any:
        decoded_in.append(threading.current_thread().name)
        return decode(*args)

    monkeypatch.setattr(execute, "_decode_last_column", watched_decode)
    large = admin.post("/api/v2/graphs/cypher", json={"query": "MATCH (n:User) RETURN n", "include_properties": True})
    assert large.status_code == 200, large.text
    nodes = large.json()["data"]["nodes"].values()
    assert len(nodes) == 600 and decoded_in and all(name.startswith("answer-shaping") for name in decoded_in)
    by_id = {node["objectId"]: node["properties"] for node in nodes}
    assert by_id["LARGE-7"]["name"] == "U7" and by_id["LARGE-8"]["enabled"] is True
    assert by_id["LARGE-7"]["tags"] == ["a", "b"]
    small = admin.post("/api/v2/graphs/cypher", json={"query": "MATCH (n:User) RETURN n LIMIT 3"})
    assert small.status_code == 200 and len(small.json()["data"]["nodes"]) == 3
    assert len(decoded_in) == 1  # a small answer's few properties are decoded as they arrive
