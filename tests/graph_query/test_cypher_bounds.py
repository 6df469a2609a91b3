"""All-pairs shortest paths stop within the request's deadline, leave nothing running or locked, and
answers have a size limit (issue #11, defect 2 and "bounded work everywhere")."""

from __future__ import annotations

import threading

import httpx
import pytest

from houndgraph.db import Database
from houndgraph.settings import Settings
from tests.conftest import another_server, move_node_ids_past_given_ones
from tests.test_request_deadline import TIMED_OUT, admin_of, running_queries, wait_until_no_running_query

URL = "/api/v2/graphs/cypher"
NODES, EDGES = 3000, 15000


@pytest.fixture
def random_graph(empty_graph: Database) -> Database:
    """NODES users with EDGES random MemberOf edges between them: every pair search has work to do."""
    with empty_graph.connect_raw(autocommit=True) as conn:
        conn.execute("INSERT INTO kind (name) VALUES ('User'), ('MemberOf') ON CONFLICT DO NOTHING")
        conn.execute("INSERT INTO node (id, kind_ids, properties) SELECT i, ARRAY[(SELECT id FROM kind WHERE "
                     "name = 'User')], jsonb_build_object('objectid', 'RANDOM-' || i, 'name', 'U' || i) "
                     "FROM generate_series(1, %s) AS i", (NODES,))
        move_node_ids_past_given_ones(conn)
        conn.execute("SELECT setseed(0.11)")
        conn.execute("INSERT INTO edge (start_id, end_id, kind_id) SELECT 1 + floor(random() * %(n)s)::bigint, "
                     "1 + floor(random() * %(n)s)::bigint, (SELECT id FROM kind WHERE name = 'MemberOf') "
                     "FROM generate_series(1, %(e)s) ON CONFLICT DO NOTHING", {"n": NODES, "e": EDGES})
        conn.execute("ANALYZE node; ANALYZE edge")
    return empty_graph


def tables_unlocked(database: Database) -> bool:
    """True when no other transaction holds a lock on the graph tables (clear-database could TRUNCATE)."""
    with database.connect_raw() as conn:
        conn.execute("SET lock_timeout = 2000")
        try:
            conn.execute("LOCK TABLE node, edge IN ACCESS EXCLUSIVE MODE")
        except Exception:
            return False
        finally:
            conn.rollback()
    return True


@pytest.mark.parametrize("shortest", ["allShortestPaths", "shortestPath"])
def test_all_pairs_shortest_paths_stop_at_the_deadline(admin: httpx.Client, random_graph: Database,
                                                       shortest: str) -> None:
    answers: list[httpx.Response] = []

    def run() -> None:
        answers.append(admin.post(URL, json={"query": f"MATCH p={shortest}((a)-[*]->(b)) RETURN p"},
                                  headers={"Prefer": "wait=3"}, timeout=90))

    worker = threading.Thread(target=run)
    worker.start()
    try:
        with httpx.Client(base_url=str(admin.base_url), timeout=10) as other:
            assert other.get("/api/version").status_code == 200, "the service answers meanwhile"
    finally:
        worker.join(timeout=120)
    assert answers, "the query did not answer"
    assert answers[0].status_code == 500
    assert answers[0].json()["errors"][0]["message"] == TIMED_OUT
    assert wait_until_no_running_query(random_graph)
    assert not running_queries(random_graph)
    assert tables_unlocked(random_graph), "no lock may outlive the request"


def test_too_many_rows_answer_400(admin: httpx.Client) -> None:
    response = admin.post(URL, json={"query": "UNWIND range(1, 100001) AS x RETURN x"})
    assert response.status_code == 400
    assert "more than 100000 rows" in response.json()["errors"][0]["message"]
    assert admin.post(URL, json={"query": "UNWIND range(1, 1000) AS x RETURN x"}).status_code == 200


def test_a_response_over_the_byte_limit_answers_400(server_settings: Settings, database: Database) -> None:
    with another_server(server_settings, database, max_response_bytes=4096) as server, admin_of(server) as http:
        response = http.post(URL, json={"query": "UNWIND range(1, 5000) AS x RETURN x"})
        assert response.status_code == 400
        assert "larger than 4096 bytes" in response.json()["errors"][0]["message"]
        assert http.post(URL, json={"query": "RETURN 1 AS one"}).status_code == 200
