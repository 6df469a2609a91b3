"""The path routes answer from the edges' copy in memory (houndgraph/graph/projection) exactly what they answer
from PostgreSQL, and never from a copy older than the edges a request starts on: a committed write to the edges,
by whatever writer, is in the next answer."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import httpx
import psycopg
import pytest

from houndgraph.db import Database
from houndgraph.graph.projection.csr import META
from houndgraph.graph.projection.search import PairSearch
from houndgraph.graph.projection.store import ProjectionStore
from houndgraph.settings import Settings
from tests.conftest import ADMIN_PASSWORD, LiveServer, another_server, login, move_node_ids_past_given_ones

ROUTES = ["/api/v2/graphs/shortest-path", "/api/v2/pathfinding"]


def edge_version(database: Database) -> str:
    with database.connect_raw() as conn:
        row = conn.execute("SELECT database_id::text || '.' || generation FROM edge_generation").fetchone()
    assert row is not None
    return str(row[0])


def ready_copy(server: LiveServer, database: Database) -> PairSearch:
    """The server's copy of the edges as they are now, once built."""
    store = server.app.state.database.edge_projections
    assert isinstance(store, ProjectionStore)
    search = store.wait_for(edge_version(database), 60)
    assert search is not None, "the copy was built"
    return search


@pytest.fixture
def postgresql_only(server_settings: Settings, database: Database) -> Iterator[httpx.Client]:
    """The service with the copy turned off: every path search runs in PostgreSQL."""
    with another_server(server_settings, database, path_projection=False) as server, \
            httpx.Client(base_url=server.base_url, timeout=60) as http:
        http.headers["Authorization"] = f"Bearer {login(http, 'admin', ADMIN_PASSWORD)}"
        assert server.app.state.database.edge_projections is None
        yield http


def answer(http: httpx.Client, route: str, params: dict[str, str]) -> tuple[int, Any]:
    response = http.get(route, params=params)
    body = response.json()
    if response.status_code != 200:
        body = body["errors"]  # the request id and time differ
    return response.status_code, body


def test_the_routes_answer_from_memory_as_from_postgresql(admin: httpx.Client, postgresql_only: httpx.Client,
                                                          live_server: LiveServer, labs: Database) -> None:
    with labs.connect_raw() as conn:
        object_ids = sorted(row[0] for row in conn.execute(
            "SELECT properties->>'objectid' FROM node n WHERE EXISTS (SELECT FROM edge e WHERE e.start_id = n.id)"
        ).fetchall() if row[0])
        # Ends most nodes reach (groups such as Domain Users and Domain Admins), and some drawn at random.
        targets = [row[0] for row in conn.execute(
            "SELECT n.properties->>'objectid' FROM node n JOIN edge e ON e.end_id = n.id "
            "JOIN kind k ON k.id = e.kind_id WHERE n.properties ? 'objectid' AND k.name = 'MemberOf' "
            "GROUP BY n.id ORDER BY count(*) DESC, n.id "
            "LIMIT 12").fetchall()]
    rng = random.Random(36)
    pairs = [(rng.choice(object_ids), rng.choice(targets) if number % 4 else rng.choice(object_ids))
             for number in range(60)]
    copy = ready_copy(live_server, labs)
    searched_before, found = copy.searches, 0
    for number, (start, end) in enumerate(pairs):
        params = {"start_node": start, "end_node": end}
        if number % 3 == 1:
            params["relationship_kinds"] = "in:MemberOf,GenericAll,AdminTo,HasSession,Contains"
        elif number % 3 == 2:
            params["only_traversable"] = "true"
        for route in ROUTES:
            from_memory = answer(admin, route, params)
            assert from_memory == answer(postgresql_only, route, params), (route, params)
            found += from_memory[0] == 200 and bool(from_memory[1]["data"])
    assert found >= 20, "the pairs drawn are connected often enough to compare paths"
    # Every search with two distinct known ends ran over the copy.
    assert copy.searches - searched_before >= found


def _chain_graph(database: Database) -> None:
    """Users CHAIN-1 -> CHAIN-2 -> CHAIN-3 -> CHAIN-4 by MemberOf."""
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("INSERT INTO kind (name) VALUES ('MemberOf'), ('GenericAll') ON CONFLICT DO NOTHING")
        conn.execute("INSERT INTO node (id, kind_ids, properties) SELECT i, '{}', "
                     "jsonb_build_object('objectid', 'CHAIN-' || i) FROM generate_series(1, 4) AS i")
        move_node_ids_past_given_ones(conn)
        conn.execute("INSERT INTO edge (start_id, end_id, kind_id) SELECT i, i + 1, "
                     "(SELECT id FROM kind WHERE name = 'MemberOf') FROM generate_series(1, 3) AS i")


def _kinds_on_path(http: httpx.Client) -> list[str]:
    response = http.get(ROUTES[0], params={"start_node": "CHAIN-1", "end_node": "CHAIN-4"})
    assert response.status_code == 200, response.text
    return sorted(edge["kind"] for edge in response.json()["data"]["edges"])


def test_a_committed_edge_write_is_in_the_next_answer(admin: httpx.Client, live_server: LiveServer,
                                                      empty_graph: Database) -> None:
    _chain_graph(empty_graph)
    copy = ready_copy(live_server, empty_graph)
    searched = copy.searches
    assert _kinds_on_path(admin) == ["MemberOf"] * 3
    assert copy.searches == searched + 1, "the copy answered"
    with empty_graph.connect_raw() as conn:
        conn.execute("INSERT INTO edge (start_id, end_id, kind_id) SELECT 1, 4, id FROM kind WHERE name = 'GenericAll'")
    # Straight after the commit: the shortcut is in the answer (searched in PostgreSQL until the new copy is built).
    assert _kinds_on_path(admin) == ["GenericAll"]
    newer = ready_copy(live_server, empty_graph)
    assert newer is not copy
    searched = newer.searches
    assert _kinds_on_path(admin) == ["GenericAll"]
    assert newer.searches == searched + 1, "the new copy answered"


def test_an_end_whose_node_changed_without_an_edge_write_is_searched_from_its_new_node(
        admin: httpx.Client, live_server: LiveServer, empty_graph: Database) -> None:
    """The routes remember the nodes of the object ids they were asked about (one statement per search, not two),
    and check them in the statement that reads the paths."""
    _chain_graph(empty_graph)
    copy = ready_copy(live_server, empty_graph)
    assert _kinds_on_path(admin) == ["MemberOf"] * 3
    with empty_graph.connect_raw() as conn:
        # CHAIN-4 is now node 2, one hop from CHAIN-1.
        conn.execute("UPDATE node SET properties = properties || '{\"objectid\": \"CHAIN-OLD\"}' WHERE id = 4")
        conn.execute("UPDATE node SET properties = properties || '{\"objectid\": \"CHAIN-4\"}' WHERE id = 2")
    searched = copy.searches
    assert _kinds_on_path(admin) == ["MemberOf"]
    assert copy.searches == searched + 2, "searched from the remembered node, then from the new one"


def test_an_analysis_builds_the_copy_of_what_it_analysed(admin: httpx.Client, live_server: LiveServer,
                                                         empty_graph: Database) -> None:
    _chain_graph(empty_graph)
    store = live_server.app.state.database.edge_projections
    assert isinstance(store, ProjectionStore)
    assert not (store.directory / edge_version(empty_graph)).exists(), "no search asked for a copy yet"
    assert admin.put("/api/v2/analysis").status_code == 202
    deadline = time.monotonic() + 120
    while not (store.directory / edge_version(empty_graph) / META).exists():
        assert time.monotonic() < deadline, "the analysed graph was copied without a search asking for it"
        time.sleep(0.1)


def test_every_committed_edge_write_moves_the_version_and_nothing_else_does(empty_graph: Database) -> None:
    _chain_graph(empty_graph)
    first = edge_version(empty_graph)
    with empty_graph.connect_raw() as conn:
        conn.execute("UPDATE edge SET properties = '{\"isacl\": true}' WHERE start_id = 1")
        conn.rollback()
    assert edge_version(empty_graph) == first, "a rolled-back write moves nothing"
    with empty_graph.connect_raw() as conn:
        conn.execute("UPDATE node SET properties = properties || '{\"name\": \"X\"}' WHERE id = 1")
    assert edge_version(empty_graph) == first, "nodes are not in the copy"
    with empty_graph.connect_raw() as conn:
        # Analysis marks its writes (they do not move `graph_generation`); they are edges all the same.
        conn.execute("SELECT set_config('houndgraph.analysis', 'on', true)")
        conn.execute("DELETE FROM edge WHERE start_id = 3")
        conn.execute("UPDATE edge SET properties = '{}' WHERE start_id = 1")
        # Not visible before the commit, from another connection.
        assert edge_version(empty_graph) == first
    second = edge_version(empty_graph)
    assert second != first
    # One transaction, one move, however many statements; the database's id stays.
    assert second.split(".")[0] == first.split(".")[0]
    assert int(second.split(".")[1]) == int(first.split(".")[1]) + 1


def test_the_workers_of_a_host_share_one_copy(empty_graph: Database, tmp_path: Any) -> None:
    _chain_graph(empty_graph)
    version = edge_version(empty_graph)
    stores = [ProjectionStore(tmp_path, empty_graph.connect_raw) for _ in range(2)]
    try:
        assert all(store.search_for(version) is None for store in stores), "nothing built yet"
        searches = [store.wait_for(version, 60) for store in stores]
        assert all(search is not None for search in searches)
        assert sum(store.builds for store in stores) == 1
        assert [path.name for path in tmp_path.iterdir() if path.is_dir()] == [version]
        for search in searches:
            assert search is not None
            assert search.shortest_path_edges(1, 4, None, 100)[1]
    finally:
        for store in stores:
            store.close()


def test_the_copy_is_a_copy_of_the_database_it_was_read_from(empty_graph: Database) -> None:
    """A data directory pointed at another database never serves the first one's copy: the version names the
    database."""
    with empty_graph.connect_raw() as conn:
        database_id = conn.execute("SELECT database_id FROM edge_generation").fetchone()
        other = conn.execute("SELECT gen_random_uuid()").fetchone()
    assert database_id is not None and other is not None and database_id != other
    with pytest.raises(psycopg.errors.CheckViolation):
        with empty_graph.connect_raw() as conn:
            conn.execute("INSERT INTO edge_generation (single) VALUES (false)")
