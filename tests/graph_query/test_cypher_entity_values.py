"""Nodes, relationships and paths inside lists and maps over POST /api/v2/graphs/cypher: as the reference, a value
that is not one node, relationship or path is a literal, and each entity in it is a record (graph_query/literals.py);
the entities of a list or map still read, compare and delete as entities."""

from __future__ import annotations

from typing import Any

import httpx

from tests.graph_query.test_cypher_endpoint import message, post


def literals(response: httpx.Response) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()["data"]["literals"]
    return found


def test_a_list_of_nodes_is_a_literal_of_node_records(admin: httpx.Client, graph: dict[str, int]) -> None:
    response = post(admin, "MATCH (u:User) WHERE u.name STARTS WITH 'A' OR u.name STARTS WITH 'B' "
                           "WITH u ORDER BY u.name RETURN collect(u) AS users")
    [literal] = literals(response)
    assert literal["key"] == "users"
    assert [(n["id"], n["kinds"], n["properties"]["name"]) for n in literal["value"]] == [
        (graph["alice"], ["Base", "User"], "ALICE@LAB.LOCAL"), (graph["bob"], ["Base", "User"], "BOB@LAB.LOCAL")]
    # Not drawn: the reference's graph holds the nodes, relationships and paths returned as such only.
    assert response.json()["data"]["nodes"] == {}


def test_relationships_and_paths_in_a_list_are_records(admin: httpx.Client, graph: dict[str, int]) -> None:
    response = post(admin, "MATCH p = (:User {name: 'ALICE@LAB.LOCAL'})-[r:MemberOf]->(g) "
                           "RETURN [r] AS rels, [p] AS paths, g")
    rels, paths = literals(response)
    [edge] = rels["value"]
    assert (edge["start_id"], edge["kind"], edge["end_id"]) == (graph["alice"], "MemberOf", graph["it"])
    [path] = paths["value"]
    assert [n["id"] for n in path["nodes"]] == [graph["alice"], graph["it"]]
    assert [e["id"] for e in path["edges"]] == [edge["id"]]
    assert set(response.json()["data"]["nodes"]) == {str(graph["it"])}


def test_a_map_and_a_mixed_list_hold_entities(admin: httpx.Client, graph: dict[str, int]) -> None:
    response = post(admin, "MATCH (g:Group {name: 'IT@LAB.LOCAL'}) RETURN {group: g, size: 1} AS m, [g, 'x'] AS l")
    m, mixed = literals(response)
    assert m["value"]["size"] == 1 and m["value"]["group"]["id"] == graph["it"]
    assert mixed["value"][0]["properties"]["name"] == "IT@LAB.LOCAL" and mixed["value"][1] == "x"


def test_an_entity_taken_from_a_list_reads_as_itself(admin: httpx.Client, graph: dict[str, int]) -> None:
    response = post(admin, "MATCH (u:User {name: 'ALICE@LAB.LOCAL'})-[r:MemberOf]->() WITH [u, r, 1] AS l "
                           "RETURN labels(l[0]) AS kinds, (l[0]).name AS name, type(l[1]) AS type, "
                           "'objectid' IN keys(l[0]) AS has_key, properties(l[0]).name AS property")
    assert [(x["key"], x["value"]) for x in literals(response)] == [
        ("kinds", ["Base", "User"]), ("name", "ALICE@LAB.LOCAL"), ("type", "MemberOf"), ("has_key", True),
        ("property", "ALICE@LAB.LOCAL")]
    refused = post(admin, "MATCH (u:User {name: 'ALICE@LAB.LOCAL'}) WITH [u, 1] AS l RETURN labels(l[1])")
    assert refused.status_code == 400 and "labels() expects a node" in message(refused)


def test_lists_of_entities_compare_by_identity(admin: httpx.Client, graph: dict[str, int]) -> None:
    response = post(admin, "MATCH (a:User {name: 'ALICE@LAB.LOCAL'}), (b:User {name: 'BOB@LAB.LOCAL'}) "
                           "WITH a, b, [a, 1] AS l "
                           "RETURN [a, 1] = [a, 1] AS same, [a] = [b] AS other, {n: a} = {n: a} AS in_maps, "
                           "a = l[0] AS taken, b = l[0] AS not_taken, a IN l AS member, b IN l AS not_member, "
                           "[a] = l[0..1] AS sliced")
    assert [x["value"] for x in literals(response)] == [True, False, True, True, False, True, False, True]


def test_delete_entities_taken_from_a_map(writer: httpx.Client, graph: dict[str, int]) -> None:
    response = post(writer, "MATCH (c:Computer) WITH {key: c} AS m DETACH DELETE m.key")
    assert response.status_code == 200, response.text
    assert post(writer, "MATCH (c:Computer) RETURN c").status_code == 404
    count = "MATCH (:User)-[r]->() RETURN count(r) AS n"
    [before] = literals(post(writer, count))
    response = post(writer, "MATCH (:User)-[r]->() WITH {key: collect(r)} AS m DELETE m.key[0]")
    assert response.status_code == 200, response.text
    assert [x["value"] for x in literals(post(writer, count))] == [before["value"] - 1]
