"""Updating Cypher over HTTP, on a server with `enable_cypher_mutations` on: permissions, every
updating clause, the graph checked with SQL afterwards, and the audit entries of reference/behaviour.md §1."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from houndgraph.db import Database
from tests.factories import user_with_role

URL = "/api/v2/graphs/cypher"
FORBIDDEN = "Permission denied: User may not modify the graph."


def post(client: httpx.Client, query: str, **extra: Any) -> httpx.Response:
    return client.post(URL, json={"query": query, **extra})


def ok(client: httpx.Client, query: str, **extra: Any) -> dict[str, Any]:
    response = post(client, query, **extra)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def message(response: httpx.Response) -> str:
    return str(response.json()["errors"][0]["message"])


def sql(database: Database, statement: str, *args: Any) -> list[tuple[Any, ...]]:
    with database.connect_raw() as conn:
        return [tuple(row) for row in conn.execute(statement, args).fetchall()]


def node(database: Database, name: str) -> tuple[list[str], dict[str, Any]] | None:
    rows = sql(database, "SELECT ARRAY(SELECT k.name FROM unnest(n.kind_ids) WITH ORDINALITY AS u(id, o) "
                         "JOIN kind AS k ON k.id = u.id ORDER BY o), n.properties FROM node AS n "
                         "WHERE n.properties->>'name' = %s", name)
    return (rows[0][0], rows[0][1]) if rows else None


def edges(database: Database, start: str, end: str) -> list[tuple[str, dict[str, Any]]]:
    return [(kind, props) for kind, props in sql(
        database, "SELECT k.name, e.properties FROM edge AS e JOIN kind AS k ON k.id = e.kind_id "
                  "JOIN node AS s ON s.id = e.start_id JOIN node AS t ON t.id = e.end_id "
                  "WHERE s.properties->>'name' = %s AND t.properties->>'name' = %s ORDER BY k.name", start, end)]


def audit(database: Database, query: str) -> list[tuple[str, str, uuid.UUID, dict[str, Any]]]:
    return [(action, status, commit_id, fields) for action, status, commit_id, fields in sql(
        database, "SELECT action, status, commit_id, fields FROM audit_logs WHERE fields->>'query' = %s ORDER BY id",
        query)]


@pytest.mark.parametrize("role", ["Read-Only", "User"])
def test_callers_without_mutate_are_refused(writer: httpx.Client, admin: httpx.Client, graph: dict[str, int],
                                            empty_graph: Database, role: str) -> None:
    _, headers = user_with_role(admin, role)
    query = f"MATCH (u:User {{name: 'ALICE@LAB.LOCAL'}}) SET u.tag = '{uuid.uuid4()}'"
    response = writer.post(URL, json={"query": query}, headers=headers)
    assert response.status_code == 403, response.text
    assert message(response) == FORBIDDEN
    assert "tag" not in node(empty_graph, "ALICE@LAB.LOCAL")[1]  # type: ignore[index]
    # The attempt is audited even though the request was refused; nothing ran, so no intent.
    entries = [(action, status, fields["attempted"]) for action, status, _, fields in audit(empty_graph, query)]
    assert entries == [("UnauthorizedAccessAttempt", "failure", "MutateGraph")]
    # Reading stays allowed for them.
    assert writer.post(URL, json={"query": "MATCH (u:User) RETURN count(u)"}, headers=headers).status_code == 200


def test_a_power_user_may_mutate(writer: httpx.Client, admin: httpx.Client, graph: dict[str, int],
                                 empty_graph: Database) -> None:
    _, headers = user_with_role(admin, "Power User")
    response = writer.post(URL, json={"query": "MATCH (u:User {name: 'BOB@LAB.LOCAL'}) SET u.owned = true"},
                           headers=headers)
    assert response.status_code == 200, response.text
    assert node(empty_graph, "BOB@LAB.LOCAL")[1]["owned"] is True  # type: ignore[index]


def test_create_a_node_with_a_new_kind(writer: httpx.Client, graph: dict[str, int], empty_graph: Database) -> None:
    data = ok(writer, "CREATE (n:Base:Honeypot {name: 'TRAP@LAB.LOCAL', objectid: 's-1-5-21-1-7777', "
                      "enabled: true, spns: ['http/trap'], skipped: null}) RETURN n")
    ((node_id, shaped),) = data["nodes"].items()
    assert shaped["objectId"] == "S-1-5-21-1-7777" and shaped["kinds"] == ["Base", "Honeypot"]
    kinds, props = node(empty_graph, "TRAP@LAB.LOCAL")  # type: ignore[misc]
    assert kinds == ["Base", "Honeypot"]
    assert props == {"name": "TRAP@LAB.LOCAL", "objectid": "S-1-5-21-1-7777", "enabled": True, "spns": ["http/trap"]}
    assert sql(empty_graph, "SELECT count(*) FROM kind WHERE name = 'Honeypot'") == [(1,)]
    assert sql(empty_graph, "SELECT id FROM node WHERE properties->>'objectid' = 'S-1-5-21-1-7777'") == [
        (int(node_id),)]


def test_create_relationships_between_matched_and_new_nodes(writer: httpx.Client, graph: dict[str, int],
                                                            empty_graph: Database) -> None:
    data = ok(writer, "MATCH (u:User {name: 'CAROL@LAB.LOCAL'}), (c:Computer {name: 'DC01.LAB.LOCAL'}) "
                      "CREATE (u)-[:AdminTo {reason: 'test'}]->(c), (c)-[:HasSession]->(u) "
                      "CREATE p = (u)-[:Owns]->(:Base:Computer {name: 'NEW01.LAB.LOCAL'}) RETURN p")
    assert [e["kind"] for e in data["edges"]] == ["Owns"]
    assert edges(empty_graph, "CAROL@LAB.LOCAL", "DC01.LAB.LOCAL") == [("AdminTo", {"reason": "test"})]
    assert edges(empty_graph, "DC01.LAB.LOCAL", "CAROL@LAB.LOCAL") == [("HasSession", {})]
    assert edges(empty_graph, "CAROL@LAB.LOCAL", "NEW01.LAB.LOCAL") == [("Owns", {})]


def test_a_long_script_of_create_clauses(writer: httpx.Client, graph: dict[str, int], empty_graph: Database) -> None:
    """A chain of 250 CREATE clauses, each naming the node the one before made (a TCK scenario's setup is
    a script like it), makes the whole chain."""
    script = "CREATE (n0:Chain {name: 'chain-0'}) " + " ".join(
        f"CREATE (n{i - 1})-[:NEXT]->(n{i}:Chain {{name: 'chain-{i}'}})" for i in range(1, 250))
    ok(writer, script)
    assert sql(empty_graph, "SELECT count(*) FROM node WHERE properties->>'name' LIKE 'chain-%%'") == [(250,)]
    links = sql(empty_graph, "SELECT s.properties->>'name', t.properties->>'name' FROM edge AS e "
                             "JOIN node AS s ON s.id = e.start_id JOIN node AS t ON t.id = e.end_id "
                             "JOIN kind AS k ON k.id = e.kind_id WHERE k.name = 'NEXT'")
    assert sorted(links) == sorted((f"chain-{i - 1}", f"chain-{i}") for i in range(1, 250))


def test_merge_creates_once_then_matches(writer: httpx.Client, graph: dict[str, int], empty_graph: Database) -> None:
    query = ("UNWIND ['SVC1@LAB.LOCAL', 'SVC1@LAB.LOCAL', 'ALICE@LAB.LOCAL'] AS name MERGE (u:User {name: name}) "
             "ON CREATE SET u.created = true ON MATCH SET u.seen = coalesce(u.seen, 0) + 1 RETURN count(DISTINCT u)")
    assert ok(writer, query)["literals"] == [{"key": "count(DISTINCT u)", "value": 2}]
    assert sql(empty_graph, "SELECT count(*) FROM node WHERE properties->>'name' = 'SVC1@LAB.LOCAL'") == [(1,)]
    # The second SVC1 row finds the node the first one created, as Neo4j runs them one by one: ON MATCH applies.
    assert node(empty_graph, "SVC1@LAB.LOCAL")[1] == {"name": "SVC1@LAB.LOCAL", "created": True,  # type: ignore[index]
                                                      "seen": 1}
    assert node(empty_graph, "ALICE@LAB.LOCAL")[1]["seen"] == 1  # type: ignore[index]
    ok(writer, "MERGE (u:User {name: 'SVC1@LAB.LOCAL'}) ON MATCH SET u.seen = 1 RETURN u")
    assert sql(empty_graph, "SELECT count(*) FROM node WHERE properties->>'name' = 'SVC1@LAB.LOCAL'") == [(1,)]
    assert node(empty_graph, "SVC1@LAB.LOCAL")[1]["seen"] == 1  # type: ignore[index]


def test_merge_by_objectid_matches_the_upper_cased_id(writer: httpx.Client, graph: dict[str, int],
                                                      empty_graph: Database) -> None:
    ok(writer, "MERGE (u:User {objectid: 's-1-5-21-1-1101'}) ON MATCH SET u.matched = true RETURN u")
    assert node(empty_graph, "ALICE@LAB.LOCAL")[1]["matched"] is True  # type: ignore[index]
    assert sql(empty_graph, "SELECT count(*) FROM node") == [(len(graph),)]


def test_merge_a_relationship(writer: httpx.Client, graph: dict[str, int], empty_graph: Database) -> None:
    query = ("MATCH (a:User {name: 'CAROL@LAB.LOCAL'}), (b:User {name: 'BOB@LAB.LOCAL'}) "
             "MERGE (a)-[r:{kind}]->(b) ON CREATE SET r.new = true ON MATCH SET r.again = true RETURN r")
    ok(writer, query.replace("{kind}", "GenericAll"))
    ok(writer, query.replace("{kind}", "ForceChangePassword"))
    assert edges(empty_graph, "CAROL@LAB.LOCAL", "BOB@LAB.LOCAL") == [
        ("ForceChangePassword", {"new": True}), ("GenericAll", {"isacl": True, "again": True})]


def test_set_properties_maps_and_labels(writer: httpx.Client, graph: dict[str, int], empty_graph: Database) -> None:
    ok(writer, "MATCH (u:User {name: 'ALICE@LAB.LOCAL'}) SET u.owned = true, u.note = u.name + ' (owned)', "
               "u.admincount = null, u:Tag_Owned RETURN u")
    kinds, props = node(empty_graph, "ALICE@LAB.LOCAL")  # type: ignore[misc]
    assert kinds == ["Base", "User", "Tag_Owned"]
    assert props["owned"] is True and props["note"] == "ALICE@LAB.LOCAL (owned)" and "admincount" not in props
    ok(writer, "MATCH (u:User {name: 'ALICE@LAB.LOCAL'}) SET u += {title: 'ceo', hasspn: null} RETURN u")
    props = node(empty_graph, "ALICE@LAB.LOCAL")[1]  # type: ignore[index]
    assert props["title"] == "ceo" and "hasspn" not in props and props["owned"] is True
    ok(writer, "MATCH (u:User {name: 'BOB@LAB.LOCAL'}) SET u = {name: 'BOB@LAB.LOCAL', objectid: 's-1'} RETURN u")
    assert node(empty_graph, "BOB@LAB.LOCAL")[1] == {"name": "BOB@LAB.LOCAL", "objectid": "S-1"}  # type: ignore[index]
    data = ok(writer, "MATCH (u:User {name: 'ALICE@LAB.LOCAL'}) RETURN u")
    assert data["nodes"][str(graph["alice"])]["isOwnedObject"] is True


def test_set_on_relationships(writer: httpx.Client, graph: dict[str, int], empty_graph: Database) -> None:
    ok(writer, "MATCH (:User {name: 'CAROL@LAB.LOCAL'})-[r:GenericAll]->() SET r.isacl = false, r.checked = 1 "
               "RETURN r")
    assert edges(empty_graph, "CAROL@LAB.LOCAL", "BOB@LAB.LOCAL") == [("GenericAll", {"isacl": False, "checked": 1})]


def test_remove_properties_and_labels(writer: httpx.Client, graph: dict[str, int], empty_graph: Database) -> None:
    ok(writer, "MATCH (u:User) WHERE u.hasspn = true REMOVE u.hasspn, u:Base RETURN u")
    for name in ("ALICE@LAB.LOCAL", "CAROL@LAB.LOCAL"):
        kinds, props = node(empty_graph, name)  # type: ignore[misc]
        assert kinds == ["User"] and "hasspn" not in props
    assert node(empty_graph, "BOB@LAB.LOCAL")[0] == ["Base", "User"]  # type: ignore[index]


def test_delete_relationships_and_detach_delete_nodes(writer: httpx.Client, graph: dict[str, int],
                                                      empty_graph: Database) -> None:
    ok(writer, "MATCH (:Computer {name: 'WS01.LAB.LOCAL'})-[s:HasSession]->() DELETE s")
    assert sql(empty_graph, "SELECT count(*) FROM edge WHERE start_id = %s", graph["ws01"]) == [(0,)]
    ok(writer, "MATCH (g:Group {name: 'HELPDESK@LAB.LOCAL'}) DETACH DELETE g")
    assert node(empty_graph, "HELPDESK@LAB.LOCAL") is None
    assert sql(empty_graph, "SELECT count(*) FROM edge WHERE %s IN (start_id, end_id)", graph["helpdesk"]) == [(0,)]
    # A node whose relationships are deleted in the same clause needs no DETACH.
    ok(writer, "MATCH (c:Computer {name: 'DC01.LAB.LOCAL'})-[r]-() DELETE c, r")
    assert node(empty_graph, "DC01.LAB.LOCAL") is None


def test_what_a_deleted_entity_no_longer_has_cannot_be_read(writer: httpx.Client, graph: dict[str, int],
                                                           empty_graph: Database) -> None:
    for query in ("MATCH (u:User {name: 'CAROL@LAB.LOCAL'}) DETACH DELETE u RETURN u.name",
                  "MATCH (u:User {name: 'CAROL@LAB.LOCAL'}) DETACH DELETE u WITH u RETURN labels(u)",
                  "MATCH ()-[r:GenericAll]->() DELETE r RETURN properties(r)"):
        response = post(writer, query)
        assert response.status_code == 400, query
        assert message(response).endswith("(DeletedEntityAccess)")
    # Refused, so rolled back: CAROL and her edge are still there.
    assert node(empty_graph, "CAROL@LAB.LOCAL") is not None
    assert edges(empty_graph, "CAROL@LAB.LOCAL", "BOB@LAB.LOCAL") == [("GenericAll", {"isacl": True})]
    # Nothing deleted (a null), a name bound anew after a WITH that drops it, the deleted entity itself: all read.
    assert ok(writer, "OPTIONAL MATCH (u:User {name: 'NOBODY'}) DELETE u RETURN u.name AS name")["literals"] == [
        {"key": "name", "value": None}]  # a null literal, its value written null as the reference writes it
    literals = ok(writer, "MATCH (u:User {name: 'CAROL@LAB.LOCAL'}) DETACH DELETE u WITH count(*) AS gone "
                          "MATCH (u:User {name: 'BOB@LAB.LOCAL'}) RETURN gone, u.name AS name")["literals"]
    assert literals == [{"key": "gone", "value": 1}, {"key": "name", "value": "BOB@LAB.LOCAL"}]


def test_a_deleted_relationship_keeps_its_type(writer: httpx.Client, graph: dict[str, int],
                                               empty_graph: Database) -> None:
    literals = ok(writer, "MATCH (:Base {name: 'WS01.LAB.LOCAL'})-[s:HasSession]->(u) DELETE s "
                          "WITH s, u ORDER BY u.name RETURN type(s) AS kind, u.name AS name")["literals"]
    assert literals == [{"key": "kind", "value": "HasSession"}, {"key": "name", "value": "ALICE@LAB.LOCAL"},
                        {"key": "kind", "value": "HasSession"}, {"key": "name", "value": "BOB@LAB.LOCAL"}]
    assert edges(empty_graph, "WS01.LAB.LOCAL", "ALICE@LAB.LOCAL") == []


def test_delete_of_a_connected_node_without_detach_is_refused(writer: httpx.Client, graph: dict[str, int],
                                                              empty_graph: Database) -> None:
    query = "CREATE (:Base {name: 'PARTIAL'}) WITH 1 AS x MATCH (u:User {name: 'CAROL@LAB.LOCAL'}) DELETE u"
    response = post(writer, query)
    assert response.status_code == 400
    assert message(response).startswith(f"Cannot delete node<{graph['carol']}>, because it still has relationships")
    # The whole query is rolled back: the node it created first is gone too.
    assert node(empty_graph, "CAROL@LAB.LOCAL") is not None and node(empty_graph, "PARTIAL") is None
    entries = audit(empty_graph, query)
    assert [(action, status) for action, status, _, _ in entries] == [("MutateGraph", "intent"),
                                                                    ("MutateGraph", "failure")]
    assert entries[0][2] == entries[1][2]
    assert entries[1][3]["error"].startswith("Cannot delete node")


def test_mutation_with_an_empty_result_is_200(writer: httpx.Client, graph: dict[str, int]) -> None:
    for query in ("MATCH (u:User {name: 'NOBODY'}) SET u.x = 1",
                  "MATCH (u:User {name: 'NOBODY'}) SET u.x = 1 RETURN u"):
        assert ok(writer, query) == {"nodes": {}, "edges": [], "literals": []}


def test_successful_mutations_are_audited(writer: httpx.Client, graph: dict[str, int], empty_graph: Database) -> None:
    query = f"MATCH (u:User {{name: 'BOB@LAB.LOCAL'}}) SET u.marker = '{uuid.uuid4()}'"
    ok(writer, f"  {query}  ")
    entries = audit(empty_graph, query)
    assert [(action, status) for action, status, _, _ in entries] == [("MutateGraph", "intent"),
                                                                    ("MutateGraph", "success")]
    assert entries[0][2] == entries[1][2]
    actor = sql(empty_graph, "SELECT DISTINCT actor_name, request_id IS NOT NULL FROM audit_logs "
                             "WHERE fields->>'query' = %s", query)
    assert actor == [("admin", True)]


def test_reads_on_the_mutable_server_are_not_audited(writer: httpx.Client, graph: dict[str, int],
                                                     empty_graph: Database) -> None:
    query = f"MATCH (u:User) WHERE u.name <> '{uuid.uuid4()}' RETURN count(u)"
    ok(writer, query)
    assert audit(empty_graph, query) == []


def test_updating_clause_errors_are_bad_requests(writer: httpx.Client, graph: dict[str, int]) -> None:
    cases = {
        "CREATE (a:User)-[:A|B]->(b:User)": "Exactly one relationship type must be specified for CREATE",
        "CREATE (a:User)-[:A]-(b:User)": "Only directed relationships are supported in CREATE",
        "MATCH (u:User {name: 'ALICE@LAB.LOCAL'}) SET u.p = {a: 1}": "Property values can only be of primitive "
                                                                   "types or arrays thereof: a map cannot be stored",
        "CREATE (:User {objectid: 's-1-5-21-1-1101'})": "objectid must be unique",
        "MATCH (n) RETURN n UNION MATCH (n) DETACH DELETE n RETURN n": "UNION in a query with updating clauses "
                                                                       "is not supported",
    }
    for query, expected in cases.items():
        response = post(writer, query)
        assert response.status_code == 400, query
        assert message(response).startswith(expected), (query, message(response))
