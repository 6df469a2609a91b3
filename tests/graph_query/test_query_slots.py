"""One user's graph queries running at once are capped, across every process of the service, so that one reader
cannot take every connection (or PostgreSQL's CPU)."""

from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import httpx

from houndgraph.db import Database
from houndgraph.query_slots import NO_LONG_TURN, QUERY_SLOT_SPACE, TOO_MANY, QuerySlots
from houndgraph.settings import Settings
from tests.conftest import LiveServer, another_server
from tests.factories import user_with_role
from tests.test_request_deadline import RUNAWAY, TIMED_OUT


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
        messages = sorted((answer.result().status_code, answer.result().json()["errors"][0]["message"])
                          for answer in answers)
    # Past the cap, refused at once; of the cap's queries, one ran as the user's long query to its deadline (the
    # reference's timeout), and the others were refused for room while they waited for the user's long turn.
    assert messages == sorted([(429, TOO_MANY)] * cap + [(429, NO_LONG_TURN)] * (cap - 1) + [(500, TIMED_OUT)])


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
        # One ran to its deadline as the user's long query; the others waited for its turn until theirs.
        assert sorted(answer.result().status_code for answer in first_answers) == [429] * (cap - 1) + [500]
    # The slots went with the transactions that held them.
    again = admin.post("/api/v2/graphs/cypher", json={"query": "MATCH (n) RETURN n LIMIT 1"}, headers=headers)
    assert again.status_code in (200, 404)


def test_a_query_waits_a_moment_for_a_slot_before_it_is_refused(admin: httpx.Client, server_settings: Settings,
                                                                  database: Database) -> None:
    # An automation sending its short queries through one account got 429 whenever the cap was reached for an
    # instant; now a query waits up to two seconds for a slot of its user's to free.
    _, headers = user_with_role(admin, "Read-Only")
    # (A probe longer than the first query's deadline: it runs as a short query to the end, holding the slot.)
    with another_server(server_settings, database, graph_queries_per_user=1, long_graph_query_seconds=5) as server, \
            httpx.Client(base_url=server.base_url, timeout=60, headers=headers) as http, \
            ThreadPoolExecutor(1) as pool:
        first = pool.submit(http.post, "/api/v2/graphs/cypher", json={"query": RUNAWAY}, headers={"Prefer": "wait=1"})
        time.sleep(0.2)
        started = time.monotonic()
        second = http.post("/api/v2/graphs/cypher", json={"query": "MATCH (n) RETURN n LIMIT 1"})
        assert second.status_code in (200, 404), second.text
        assert first.result().status_code == 500  # it ran to its deadline, holding the only slot
        assert 0.5 < time.monotonic() - started < 2.5


def waiting_in_line(database: Database, owner: int) -> int:
    """The requests waiting in PostgreSQL for one of `owner`'s graph-query slots."""
    with database.connect_raw(autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objsubid = 2 "
            "AND classid::bigint = %s AND objid::bigint BETWEEN %s AND %s + 65535",
            (owner & 0xFFFFFFFF, QUERY_SLOT_SPACE, QUERY_SLOT_SPACE)).fetchone()
    return int(row[0]) if row else 0


def test_queries_waiting_for_a_slot_are_served_in_the_order_they_came(
        admin: httpx.Client, server_settings: Settings, database: Database) -> None:
    # Waiting queries asked again every 50 ms: whichever asked first after a slot freed took it, however long the
    # others had waited, and each ask was a statement (forty for a query refused after its two seconds).
    user, headers = user_with_role(admin, "Read-Only")
    owner = QuerySlots.owner_key(uuid.UUID(user["id"]))
    started: dict[int, int] = {}

    def query(number: int) -> int:
        # When PostgreSQL began the query's statement (ms), which it can only do once the query holds the slot. The
        # statement counts a range first, so the next query's statement starts a millisecond or more after this
        # one's: the times tell the order apart. (The order the answers came back in did not: two threads that
        # had their answers a moment apart could record them the other way round.)
        answer = http.post("/api/v2/graphs/cypher", json={
            "query": f"UNWIND range(1, 100000) AS x WITH count(x) AS counted RETURN timestamp() AS started_{number}"})
        if answer.status_code == 200:
            started[number] = answer.json()["data"]["literals"][0]["value"]
        return answer.status_code

    with another_server(server_settings, database, graph_queries_per_user=1) as server, \
            httpx.Client(base_url=server.base_url, timeout=60, headers=headers) as http, \
            database.connect_raw(autocommit=True) as holder, ThreadPoolExecutor(3) as pool:
        # The user's only slot, held here as a running query of theirs would hold it.
        holder.execute("SELECT pg_advisory_lock(%s, %s)", (owner, QUERY_SLOT_SPACE))
        answers = []
        for number in range(3):
            answers.append(pool.submit(query, number))
            for _ in range(150):
                if waiting_in_line(database, owner) > number:
                    break
                time.sleep(0.01)
            assert waiting_in_line(database, owner) == number + 1, f"query {number} waits in line"
        holder.execute("SELECT pg_advisory_unlock(%s, %s)", (owner, QUERY_SLOT_SPACE))
        assert [answer.result() for answer in answers] == [200, 200, 200]
    assert sorted(started, key=started.__getitem__) == [0, 1, 2], started
    assert len(set(started.values())) == 3, started
