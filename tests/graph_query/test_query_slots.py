"""One user's graph queries running at once are capped, across every process of the service, so that one reader
cannot take every connection (or PostgreSQL's CPU)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from houndgraph.db import Database
from houndgraph.settings import Settings
from tests.conftest import LiveServer, another_server
from tests.factories import user_with_role
from tests.test_request_deadline import RUNAWAY


def test_one_reader_cannot_take_the_pool_from_everyone_else(admin: httpx.Client, live_server: LiveServer) -> None:
    # One Read-Only user with 32 long queries at once took the pool: others waited 24 s, health answered 503.
    _, headers = user_with_role(admin, "Read-Only")
    cap = live_server.settings.graph_queries_per_user
    long_query = {**headers, "Prefer": "wait=5"}
    with ThreadPoolExecutor(cap * 2) as pool:
        answers = [pool.submit(admin.post, "/api/v2/graphs/cypher", json={"query": RUNAWAY}, headers=long_query)
                   for _ in range(cap * 2)]
        time.sleep(1.5)
        started = time.monotonic()
        others = admin.post("/api/v2/graphs/cypher", json={"query": "MATCH (n) RETURN n LIMIT 1"})
        # (404: the graph is empty, which the reference answers with a 404.)
        assert others.status_code in (200, 404) and time.monotonic() - started < 3
        statuses = [answer.result().status_code for answer in answers]
    assert statuses.count(429) == cap, statuses
    refused = next(answer.result() for answer in answers if answer.result().status_code == 429)
    assert refused.json()["errors"][0]["message"].startswith("too many graph queries running at once")


def test_the_cap_holds_across_the_service_processes(admin: httpx.Client, live_server: LiveServer,
                                                    server_settings: Settings, database: Database) -> None:
    # Counted per process, a user ran the cap times the worker count: six long cross products saturated
    # PostgreSQL's CPU and the other users' p99 reached 7 s.
    _, headers = user_with_role(admin, "Read-Only")
    cap = live_server.settings.graph_queries_per_user
    long_query = {**headers, "Prefer": "wait=5"}
    with another_server(server_settings, database) as second, \
            httpx.Client(base_url=second.base_url, timeout=60) as other_process, \
            ThreadPoolExecutor(cap * 2) as pool:
        first_answers = [pool.submit(admin.post, "/api/v2/graphs/cypher", json={"query": RUNAWAY},
                                     headers=long_query) for _ in range(cap)]
        time.sleep(1.5)
        refused = other_process.post("/api/v2/graphs/cypher", json={"query": RUNAWAY}, headers=long_query)
        assert refused.status_code == 429, refused.text
        assert refused.headers["Retry-After"] == "1"
        # Another user is untouched, in either process.
        others = other_process.post("/api/v2/graphs/cypher", json={"query": "MATCH (n) RETURN n LIMIT 1"},
                                    headers=admin.headers)
        assert others.status_code in (200, 404)
        assert {answer.result().status_code for answer in first_answers} == {500}  # each ran to its deadline
    # The slots went with the transactions that held them.
    again = admin.post("/api/v2/graphs/cypher", json={"query": "MATCH (n) RETURN n LIMIT 1"}, headers=headers)
    assert again.status_code in (200, 404)


def test_a_query_waits_a_moment_for_a_slot_before_it_is_refused(admin: httpx.Client, server_settings: Settings,
                                                                  database: Database) -> None:
    # An automation sending its short queries through one account got 429 whenever the cap was reached for an
    # instant; now a query waits up to two seconds for a slot of its user's to free.
    _, headers = user_with_role(admin, "Read-Only")
    with another_server(server_settings, database, graph_queries_per_user=1) as server, \
            httpx.Client(base_url=server.base_url, timeout=60, headers=headers) as http, \
            ThreadPoolExecutor(1) as pool:
        first = pool.submit(http.post, "/api/v2/graphs/cypher", json={"query": RUNAWAY}, headers={"Prefer": "wait=1"})
        time.sleep(0.2)
        started = time.monotonic()
        second = http.post("/api/v2/graphs/cypher", json={"query": "MATCH (n) RETURN n LIMIT 1"})
        assert second.status_code in (200, 404), second.text
        assert first.result().status_code == 500  # it ran to its deadline, holding the only slot
        assert 0.5 < time.monotonic() - started < 2.5
