"""POST /api/v2/graphs/cypher through the real app: shapes, status codes and messages of
reference/behaviour.md §1."""

from __future__ import annotations

from typing import Any

import httpx

URL = "/api/v2/graphs/cypher"


def post(client: httpx.Client, query: str, **extra: Any) -> httpx.Response:
    return client.post(URL, json={"query": query, **extra})


def message(response: httpx.Response) -> str:
    return response.json()["errors"][0]["message"]


def test_nodes_are_keyed_by_graph_id_with_the_reference_fields(admin: httpx.Client, graph: dict[str, int]) -> None:
    response = post(admin, "MATCH (g:Group {name: 'DOMAIN ADMINS@LAB.LOCAL'}) RETURN g")
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    node = data["nodes"][str(graph["da"])]
    assert node["label"] == "DOMAIN ADMINS@LAB.LOCAL"
    assert node["kind"] == "Group"
    assert node["kinds"] == ["Base", "Group"]
    assert node["objectId"] == "S-1-5-21-1-512"
    assert node["isTierZero"] is True and node["isOwnedObject"] is False
    assert node["lastSeen"]
    assert "properties" not in node
    assert data["edges"] == [] and data["literals"] == []
    assert "node_keys" not in data and "edge_keys" not in data


def test_paths_give_edges_and_include_properties_gives_keys(admin: httpx.Client, graph: dict[str, int]) -> None:
    response = post(admin, "MATCH p = shortestPath((u:User {name: 'ALICE@LAB.LOCAL'})-[*1..]->"
                           "(c:Computer {name: 'DC01.LAB.LOCAL'})) RETURN p", include_properties=True)
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert set(data["nodes"]) == {str(graph[n]) for n in ("alice", "it", "da", "dc01")}
    edges = {(e["source"], e["kind"], e["target"]) for e in data["edges"]}
    assert edges == {(str(graph["alice"]), "MemberOf", str(graph["it"])),
                     (str(graph["it"]), "MemberOf", str(graph["da"])),
                     (str(graph["da"]), "AdminTo", str(graph["dc01"]))}
    assert all(e["label"] == e["kind"] for e in data["edges"])
    assert "objectid" in data["node_keys"] and "name" in data["node_keys"]
    assert data["nodes"][str(graph["alice"])]["properties"]["hasspn"] is True


def test_scalars_are_literals(admin: httpx.Client, graph: dict[str, int]) -> None:
    response = post(admin, "MATCH (u:User) RETURN count(u) AS users")
    assert response.status_code == 200, response.text
    assert response.json()["data"]["literals"] == [{"key": "users", "value": 3}]


def test_a_null_literal_is_written_with_its_value(admin: httpx.Client, graph: dict[str, int]) -> None:
    # The reference's literal is a key and a value, neither left out when empty.
    response = post(admin, "MATCH (u:User {name: 'ALICE@LAB.LOCAL'}) "
                           "RETURN u.nothing AS missing, null AS none, 1 AS one")
    assert response.status_code == 200, response.text
    assert response.json()["data"]["literals"] == [
        {"key": "missing", "value": None}, {"key": "none", "value": None}, {"key": "one", "value": 1}]


def test_empty_result_is_not_found(admin: httpx.Client, graph: dict[str, int]) -> None:
    response = post(admin, "MATCH (u:User {name: 'NOBODY'}) RETURN u")
    assert response.status_code == 404
    assert message(response) == "resource not found"


def test_refusals_are_bad_requests_naming_the_reason(admin: httpx.Client, graph: dict[str, int]) -> None:
    cases = {
        "CALL db.labels()": "procedure invocation is not supported",
        "MATCH (n) WHERE n.name = $name RETURN n": "user-specified parameters are not supported",
        "CREATE (n:User {name: 'x'}) RETURN n": "updating clauses are not supported",
        "MATCH (n)-[*]-(m)-[*]-(o) RETURN n": "cypher query is too complex and is likely to result in poor or "
                                              "unstable database performance",
        "MATCH (n) RETURN apoc.text.join(['a'], ',')": "the function apoc.text.join() is not supported",
    }
    for query, expected in cases.items():
        response = post(admin, query)
        assert response.status_code == 400, query
        assert message(response) == expected, query
    response = post(admin, "MATCH (n RETURN n")
    assert response.status_code == 400
    assert message(response).startswith("line 1:")


def test_malformed_body(admin: httpx.Client) -> None:
    response = admin.post(URL, content=b"{not json", headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert message(response) == "JSON malformed."


def test_needs_authentication(client: httpx.Client) -> None:
    assert post(client, "MATCH (n) RETURN n").status_code == 401


def test_timeout_answers_the_reference_message(admin: httpx.Client, graph: dict[str, int]) -> None:
    # Four trillion rows, from two ranges each short enough to be built.
    response = admin.post(URL, json={"query": "UNWIND range(1, 2000000) AS x UNWIND range(1, 2000000) AS y "
                                              "RETURN count(y)"},
                          headers={"Prefer": "wait=1"})
    assert response.status_code == 500
    assert message(response) == "transaction timed out, reduce query complexity or try again later"
    # The connection went back to the pool idle: the next query works.
    assert post(admin, "MATCH (u:User) RETURN count(u) AS users").status_code == 200


def test_pattern_predicate_uses_the_ends_of_a_shortest_path(admin: httpx.Client, graph: dict[str, int]) -> None:
    """Groups ALICE reaches, less those she is a direct member of: the predicate names both ends of the path."""
    response = post(admin, "MATCH p=shortestPath((u:User {name: 'ALICE@LAB.LOCAL'})-[*1..]->(g:Group)) "
                           "WHERE NOT (u)-[:MemberOf]->(g) RETURN g.name AS name")
    assert response.status_code == 200, response.text
    names = {literal["value"] for literal in response.json()["data"]["literals"]}
    assert names == {"DOMAIN ADMINS@LAB.LOCAL", "DOMAIN CONTROLLERS@LAB.LOCAL"}


def test_statement_postgresql_refuses_is_a_bad_request(admin: httpx.Client, graph: dict[str, int]) -> None:
    # SKIP takes a constant only; the translation leaves the check to PostgreSQL.
    response = post(admin, "MATCH (n) RETURN n SKIP n.count")
    assert response.status_code == 400, response.text
    assert message(response).startswith("the query cannot be run (")


def test_a_huge_range_is_refused_before_it_is_built(admin: httpx.Client, graph: dict[str, int]) -> None:
    for query, length in (("UNWIND range(1, 100000000) AS i RETURN count(i)", 100_000_000),
                          ("RETURN range(1, 9000000)", 9_000_000),
                          ("RETURN range(10, -9999990, -1)", 10_000_001)):
        response = post(admin, query)
        assert response.status_code == 400, response.text
        assert message(response) == f"range() would hold {length} values; at most 2000000 are allowed"
    response = post(admin, "UNWIND range(1, 10) AS i RETURN sum(i) AS total")
    assert response.json()["data"]["literals"] == [{"key": "total", "value": 55}]


def test_a_huge_range_of_values_read_from_the_graph_is_refused_as_it_runs(admin: httpx.Client,
                                                                           graph: dict[str, int]) -> None:
    # A bound read from a node (a timestamp) is known only as the statement runs: refused then, not built.
    query = "WITH {n: 1700000000} AS n RETURN range(0, n.n) AS v"
    response = post(admin, query)
    assert response.status_code == 400, response.text
    assert message(response) == "range() would hold more than 2000000 values"
    response = post(admin, "WITH {n: 4} AS n RETURN range(0, n.n, 2) AS v, range(n.n, 0, -3) AS w")
    assert response.json()["data"]["literals"] == [{"key": "v", "value": [0, 2, 4]}, {"key": "w", "value": [4, 1]}]


def test_distinct_rows_ordered_by_a_property_of_a_column(admin: httpx.Client, graph: dict[str, int]) -> None:
    response = post(admin, "MATCH (n)-[:MemberOf]->(g) RETURN DISTINCT g, g.name AS name ORDER BY g.objectid")
    assert response.status_code == 200, response.text
    assert [literal["value"] for literal in response.json()["data"]["literals"]] == [
        "IT@LAB.LOCAL", "HELPDESK@LAB.LOCAL", "DOMAIN ADMINS@LAB.LOCAL", "DOMAIN CONTROLLERS@LAB.LOCAL"]
    # After DISTINCT only the projected columns exist: sorting by another variable is an error, not a 500.
    response = post(admin, "MATCH (n)-[:MemberOf]->(g) RETURN DISTINCT g.name ORDER BY n.name")
    assert response.status_code == 400 and message(response) == "Variable `n` not defined"


def test_labels_and_type_of_null_are_null(admin: httpx.Client, graph: dict[str, int]) -> None:
    response = post(admin, "OPTIONAL MATCH (n:Nothing)-[r]->() RETURN labels(null) AS a, type(null) AS b, "
                           "labels(n) AS c, type(r) AS d")
    assert response.status_code == 200, response.text
    assert response.json()["data"]["literals"] == [{"key": k, "value": None} for k in "abcd"]
    response = post(admin, "MATCH (n) RETURN type(n)")
    assert response.status_code == 400, response.text


def test_a_list_in_a_list_of_lists_compares_as_cypher_does(admin: httpx.Client, graph: dict[str, int]) -> None:
    """Equal lists are found; a null inside makes the answer null, not true."""
    response = post(admin, "RETURN [null] IN [[null]] AS a, [1] IN [[1], null] AS b, [1, 2] IN [[1, null]] AS c, "
                           "[1] IN [[2]] AS d, {k: null} IN [{k: null}] AS e, [1] IN [] AS f")
    assert response.status_code == 200, response.text
    answers = {literal["key"]: literal.get("value") for literal in response.json()["data"]["literals"]}
    assert answers == {"a": None, "b": True, "c": None, "d": False, "e": None, "f": False}


def test_a_slice_with_a_null_bound_is_null(admin: httpx.Client, graph: dict[str, int]) -> None:
    response = post(admin, "WITH [1, 2, 3] AS l RETURN l[..null] AS a, l[null..] AS b, l[1..] AS c, l[..-1] AS d")
    assert response.status_code == 200, response.text
    answers = {literal["key"]: literal.get("value") for literal in response.json()["data"]["literals"]}
    assert answers == {"a": None, "b": None, "c": [2, 3], "d": [1, 2]}
