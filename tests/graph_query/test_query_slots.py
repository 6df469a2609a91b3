"""One user's graph queries running at once are capped, so that one reader cannot take every connection."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.conftest import LiveServer
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
