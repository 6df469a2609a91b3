"""The Cypher route answers a graph: a query whose trails outnumber the row budget, but whose answer holds a
few nodes, answers them (as the reference, which collects the answer's nodes by id); one that returns a value
per trail is still refused."""

from __future__ import annotations

import httpx

from houndgraph.db import Database
from tests.conftest import move_node_ids_past_given_ones

URL = "/api/v2/graphs/cypher"
# Eighteen layers of two groups, each a member of both of the next: 2^17 trails from the user to a top group.
LAYERS = 18


def _ladder(database: Database) -> int:
    """A user in the bottom layer's groups, the top layer admin of one computer; returns the user's id."""
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("INSERT INTO kind (name) VALUES ('User'), ('Group'), ('Computer'), ('MemberOf'), ('AdminTo') "
                     "ON CONFLICT DO NOTHING")
        kinds = dict(conn.execute("SELECT name, id FROM kind").fetchall())
        groups = 2 * LAYERS
        conn.execute("INSERT INTO node (id, kind_ids, properties) SELECT i, ARRAY[%s]::smallint[], "
                     "jsonb_build_object('name', 'G' || i, 'objectid', 'G-' || i) FROM generate_series(1, %s) AS i",
                     (kinds["Group"], groups))
        conn.execute("INSERT INTO node (id, kind_ids, properties) VALUES (%s, ARRAY[%s]::smallint[], "
                     "'{\"name\": \"U@LAB\", \"objectid\": \"U-1\"}'), (%s, ARRAY[%s]::smallint[], "
                     "'{\"name\": \"C.LAB\", \"objectid\": \"C-1\"}')",
                     (groups + 1, kinds["User"], groups + 2, kinds["Computer"]))
        member = [(groups + 1, 1), (groups + 1, 2)] + [
            (start, end) for layer in range(LAYERS - 1) for start in (2 * layer + 1, 2 * layer + 2)
            for end in (2 * layer + 3, 2 * layer + 4)]
        with conn.cursor() as cursor:
            cursor.executemany("INSERT INTO edge (start_id, end_id, kind_id) VALUES (%s, %s, %s)",
                               [(s, e, kinds["MemberOf"]) for s, e in member]
                               + [(groups, groups + 2, kinds["AdminTo"])])
        move_node_ids_past_given_ones(conn)
        conn.execute("ANALYZE node; ANALYZE edge")
    return groups + 1


def test_a_graph_of_few_nodes_is_answered_whatever_the_trails(admin: httpx.Client, empty_graph: Database) -> None:
    user = _ladder(empty_graph)
    query = ("MATCH (u:User) OPTIONAL MATCH (u)-[:AdminTo]->(c1:Computer) OPTIONAL MATCH "
             "(u)-[:MemberOf*1..]->(:Group)-[:AdminTo]->(c2:Computer) WITH u, collect(c1) + collect(c2) AS l "
             "UNWIND l AS c RETURN u")
    response = admin.post(URL, json={"query": query})
    assert response.status_code == 200, response.text[:300]
    assert list(response.json()["data"]["nodes"]) == [str(user)]
    response = admin.post(URL, json={"query": "MATCH (u:User)-[:MemberOf*1..]->(g:Group)-[:AdminTo]->(c) RETURN c"})
    assert response.status_code == 200, response.text[:300]
    assert len(response.json()["data"]["nodes"]) == 1


def test_a_value_per_trail_is_still_too_many_rows(admin: httpx.Client, empty_graph: Database) -> None:
    _ladder(empty_graph)
    response = admin.post(URL, json={"query": "MATCH (u:User)-[:MemberOf*1..]->(g:Group)-[:AdminTo]->(c) "
                                              "RETURN c.name"})
    assert response.status_code == 400, response.text[:300]
    assert "more than 100000 rows" in response.json()["errors"][0]["message"]
