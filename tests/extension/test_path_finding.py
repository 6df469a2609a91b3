"""What an extension changes for a user: shortest paths follow the edge kinds it declares (only its traversable
ones with `only_traversable`) until it is deleted or extension management is turned off, and its display node
kinds are drawn as it says (`/api/v2/custom-nodes`)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from houndgraph.db import Database
from houndgraph.extension.service import traversable_edge_kinds_on
from houndgraph.graph.store.sql import WRITE_LOCK_ID
from tests.conftest import LiveServer
from tests.extension.conftest import EXTENSIONS, extension_id, flag_off, message, new_namespace, schema
from tests.pathfinding.test_path_projection import ready_copy

PATHS = "/api/v2/graphs/shortest-path"


@pytest.fixture
def namespace(empty_graph: Database) -> Iterator[str]:
    """OpenGraph data in a namespace of its own: A -Reaches-> B -Reaches-> C and the shortcut A -Sees-> C (object
    ids upper-cased, as the service stores them)."""
    namespace = new_namespace()
    with empty_graph.connect_raw(autocommit=True) as conn, conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK_ID,))
        conn.execute("INSERT INTO kind (name) VALUES (%s), (%s), (%s) ON CONFLICT (name) DO NOTHING",
                     (f"{namespace}_Host", f"{namespace}_Reaches", f"{namespace}_Sees"))
        for node in "ABC":
            conn.execute("INSERT INTO node (kind_ids, properties) SELECT ARRAY[id], jsonb_build_object('objectid', "
                         "%s::text, 'name', %s::text) FROM kind WHERE name = %s",
                         (f"{namespace}-{node}".upper(), f"{node}@{namespace}", f"{namespace}_Host"))
        for start, kind, end in (("A", "Reaches", "B"), ("B", "Reaches", "C"), ("A", "Sees", "C")):
            conn.execute("INSERT INTO edge (start_id, end_id, kind_id, properties) SELECT s.id, e.id, k.id, '{}' "
                         "FROM node s, node e, kind k WHERE s.properties->>'objectid' = %s AND "
                         "e.properties->>'objectid' = %s AND k.name = %s",
                         (f"{namespace}-{start}".upper(), f"{namespace}-{end}".upper(), f"{namespace}_{kind}"))
    yield namespace


def path(admin: httpx.Client, namespace: str, **params: str) -> tuple[int, list[str]]:
    """The status, and the kinds of the path's edges in order (or the error message)."""
    response = admin.get(PATHS, params={"start_node": f"{namespace}-A".upper(), "end_node": f"{namespace}-C".upper(),
                                          **params})
    if response.status_code != 200:
        return response.status_code, [message(response)]
    data = response.json()["data"]
    return 200, sorted(edge["kind"].removeprefix(f"{namespace}_") for edge in data["edges"])


def test_shortest_paths_follow_the_kinds_an_extension_declares_until_it_is_deleted(
        admin: httpx.Client, namespace: str, live_server: LiveServer, empty_graph: Database) -> None:
    assert path(admin, namespace) == (404, ["path not found"])
    unknown = path(admin, namespace, relationship_kinds=f"in:{namespace}_Reaches")
    assert unknown[0] == 400 and unknown[1][0].startswith("invalid query parameter 'relationship_kinds'")

    assert admin.put(EXTENSIONS, json=schema(namespace)).status_code == 201
    assert path(admin, namespace) == (200, ["Sees"])
    assert path(admin, namespace, only_traversable="true") == (200, ["Reaches", "Reaches"])
    # The same from the edges' copy in memory: it holds every kind, and each search names the kinds it follows,
    # so a change of the traversable kinds needs no new copy.
    assert ready_copy(live_server, empty_graph) is not None
    assert path(admin, namespace) == (200, ["Sees"])
    assert path(admin, namespace, only_traversable="true") == (200, ["Reaches", "Reaches"])
    assert path(admin, namespace, relationship_kinds=f"in:{namespace}_Reaches") == (200, ["Reaches", "Reaches"])
    assert path(admin, namespace, relationship_kinds=f"nin:{namespace}_Sees") == (200, ["Reaches", "Reaches"])
    # With only_traversable a non-traversable kind is not one of the kinds that may be named.
    refused = path(admin, namespace, only_traversable="true", relationship_kinds=f"in:{namespace}_Sees")
    assert refused[0] == 400

    # Declared non-traversable now: only_traversable finds no way; the kinds in general are still followed.
    flipped = schema(namespace, relationship_kinds=[{"name": f"{namespace}_Reaches", "is_traversable": False},
                                                    {"name": f"{namespace}_Sees", "is_traversable": False}])
    assert admin.put(EXTENSIONS, json=flipped).status_code == 200
    assert path(admin, namespace, only_traversable="true") == (404, ["path not found"])
    assert path(admin, namespace) == (200, ["Sees"])

    with flag_off(admin):
        assert path(admin, namespace) == (404, ["path not found"])
    assert path(admin, namespace) == (200, ["Sees"])

    assert admin.delete(f"{EXTENSIONS}/{extension_id(admin, f'{namespace} Extension')}").status_code == 204
    assert path(admin, namespace) == (404, ["path not found"])


def test_display_node_kinds_are_drawn_as_the_extension_says(admin: httpx.Client) -> None:
    namespace = new_namespace()
    # A setting made by hand before the extension: the extension's icon replaces its icon; the colour the
    # extension leaves empty is kept.
    made = admin.post("/api/v2/custom-nodes", json={"custom_types": {f"{namespace}_Account": {
        "icon": {"type": "font-awesome", "name": "user", "color": "#ABCDEF"}}}})
    assert made.status_code == 201, made.text
    body = schema(namespace)
    body["node_kinds"][1].update({"is_display_kind": True, "icon": "user-secret"})
    assert admin.put(EXTENSIONS, json=body).status_code == 201

    def drawn(kind: str) -> dict | None:
        response = admin.get(f"/api/v2/custom-nodes/{namespace}_{kind}")
        return response.json()["data"]["config"]["icon"] if response.status_code == 200 else None

    assert drawn("Host") == {"type": "font-awesome", "name": "server", "color": "#12AB34"}
    assert drawn("Account") == {"type": "font-awesome", "name": "user-secret", "color": "#ABCDEF"}
    listed = {row["kindName"] for row in admin.get("/api/v2/custom-nodes").json()["data"]}
    assert {f"{namespace}_Host", f"{namespace}_Account"} <= listed

    # As in the reference, deleting the extension keeps how its kinds are drawn (data of those kinds stays).
    assert admin.delete(f"{EXTENSIONS}/{extension_id(admin, f'{namespace} Extension')}").status_code == 204
    assert drawn("Host") == {"type": "font-awesome", "name": "server", "color": "#12AB34"}


def test_the_analysis_is_given_the_traversable_kinds_of_uploaded_extensions(admin: httpx.Client,
                                                                              database: Database) -> None:
    namespace = new_namespace()
    assert admin.put(EXTENSIONS, json=schema(namespace)).status_code == 201
    with database.connect_raw() as conn:
        assert traversable_edge_kinds_on(conn) == (f"{namespace}_Reaches",)
    with flag_off(admin), database.connect_raw() as conn:
        assert traversable_edge_kinds_on(conn) == ()
