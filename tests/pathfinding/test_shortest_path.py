"""GET /graphs/shortest-path and the deprecated GET /pathfinding over the labs (reference/behaviour.md §12);
the expected paths are computed from the collector files' memberships (tests/labs.py)."""

from __future__ import annotations

from collections import deque

import httpx
import pytest

from houndgraph.db import Database
from tests.labs import ADCS, Lab
from tests.openapi import assert_matches_spec

A = Lab(ADCS)
SID = "S-1-5-21-909015691-3030120388-2582151266"
DAVIS, JONES = f"{SID}-1112", None
EVERYONE = "ESC1.LOCAL-S-1-1-0"
URL = "/api/v2/graphs/shortest-path"


def _distances(start: str, step: dict[str, set[str]]) -> dict[str, int]:
    seen, queue = {start: 0}, deque([start])
    while queue:
        node = queue.popleft()
        for nxt in step.get(node, ()):
            if nxt not in seen:
                seen[nxt] = seen[node] + 1
                queue.append(nxt)
    return seen


def membership_shortest_edges(start: str, target: str) -> set[tuple[str, str]]:
    """Every MemberOf edge lying on some shortest membership path from start to target."""
    reverse: dict[str, set[str]] = {}
    for member, groups in A.member_of.items():
        for group in groups:
            reverse.setdefault(group, set()).add(member)
    forward, backward = _distances(start, A.member_of), _distances(target, reverse)
    total = forward[target]
    return {(m, g) for m, groups in A.member_of.items() for g in groups
            if m in forward and g in backward and forward[m] + 1 + backward[g] == total}


def edges_of(data: dict) -> set[tuple[str, str, str]]:
    oid = {key: node["objectId"] for key, node in data["nodes"].items()}
    return {(oid[e["source"]], e["kind"], oid[e["target"]]) for e in data["edges"]}


def message(response: httpx.Response) -> str:
    return str(response.json()["errors"][0]["message"])


def test_membership_path_to_everyone(admin: httpx.Client, labs: Database) -> None:
    expected = {(m, "MemberOf", g) for m, g in membership_shortest_edges(DAVIS, EVERYONE)}
    response = admin.get(URL, params={"start_node": DAVIS, "end_node": EVERYONE, "relationship_kinds": "in:MemberOf"})
    assert response.status_code == 200, response.text
    assert_matches_spec(response, URL)
    data = response.json()["data"]
    assert edges_of(data) == expected
    assert all("properties" not in node for node in data["nodes"].values())
    assert data["nodes"][next(k for k, n in data["nodes"].items() if n["objectId"] == DAVIS)]["kind"] == "User"


def test_esc1_holder_reaches_the_domain_in_one_step(admin: httpx.Client, labs: Database) -> None:
    # tests/analysis/test_lab.py reads from the files that JONES enrolls in ESC1 on the domain's CA.
    jones = next(oid for oid, u in A.users.items() if u["Properties"]["name"] == "JONES@ESC1.LOCAL")
    response = admin.get(URL, params={"start_node": jones, "end_node": SID, "only_traversable": "true"})
    assert response.status_code == 200, response.text
    assert edges_of(response.json()["data"]) == {(jones, "ADCSESC1", SID)}
    # Without ADCSESC1 the path is longer, but there still is one.
    longer = admin.get(URL, params={"start_node": jones, "end_node": SID, "relationship_kinds": "nin:ADCSESC1"})
    assert longer.status_code == 200
    assert len(longer.json()["data"]["edges"]) > 1


@pytest.mark.parametrize(("params", "status", "expected"), [
    ({"end_node": EVERYONE}, 400, "Missing query parameter: start_node"),
    ({"start_node": DAVIS}, 400, "Missing query parameter: end_node"),
    ({"start_node": DAVIS, "end_node": EVERYONE, "relationship_kinds": "MemberOf"}, 400,
     "invalid query parameter 'relationship_kinds': acceptable values should match the format: in|nin:Kind1,Kind2"),
    ({"start_node": DAVIS, "end_node": EVERYONE, "relationship_kinds": "has:MemberOf"}, 400,
     "invalid query parameter 'relationship_kinds': acceptable values should match the format: in|nin:Kind1,Kind2"),
    ({"start_node": DAVIS, "end_node": EVERYONE, "relationship_kinds": "in:Contains", "only_traversable": "true"},
     200, None),
    ({"start_node": DAVIS, "end_node": EVERYONE, "relationship_kinds": "in:HasSession", "only_traversable": "x"},
     400, "there are errors in the query parameter filters specified"),
    ({"start_node": EVERYONE, "end_node": DAVIS, "relationship_kinds": "in:MemberOf"}, 404, "path not found"),
    ({"start_node": DAVIS, "end_node": "S-1-5-21-0-0-0-1"}, 404, "path not found"),
])
def test_shortest_path_errors(admin: httpx.Client, labs: Database, params: dict, status: int,
                              expected: str | None) -> None:
    response = admin.get(URL, params=params)
    if expected is None:  # Contains is traversable but leads nowhere from a user
        assert response.status_code == 404
        return
    assert response.status_code == status, response.text
    assert message(response) == expected


def test_unknown_and_empty_kind_sets(admin: httpx.Client, labs: Database) -> None:
    unknown = admin.get(URL, params={"start_node": DAVIS, "end_node": EVERYONE, "relationship_kinds": "in:Nope"})
    assert unknown.status_code == 400
    assert message(unknown).startswith("invalid query parameter 'relationship_kinds': acceptable relationship kinds "
                                       "are: [")
    empty = admin.get(URL, params={"start_node": DAVIS, "end_node": EVERYONE, "relationship_kinds": "in:TrustedBy",
                                   "only_traversable": "true"})
    assert empty.status_code == 400
    assert message(empty) == "invalid parameter combination; no valid edges to traverse"


def test_deprecated_pathfinding_answers_the_legacy_map(admin: httpx.Client, labs: Database, live_server) -> None:
    response = admin.get("/api/v2/pathfinding", params={"start_node": DAVIS, "end_node": EVERYONE})
    assert response.status_code == 200, response.text
    assert response.headers["Deprecation"] == "true"
    assert_matches_spec(response, "/api/v2/pathfinding")
    items = response.json()["data"]
    nodes = {key: item["data"]["objectid"] for key, item in items.items() if not key.startswith("rel_")}
    edges = {(nodes[item["id1"]], item["label"]["text"], nodes[item["id2"]])
             for key, item in items.items() if key.startswith("rel_")}
    # Over every kind the shortest route has as many steps as the membership route, or fewer.
    hops = _distances(DAVIS, A.member_of)[EVERYONE]
    assert edges and all(kind for _, kind, _ in edges)
    assert DAVIS in nodes.values() and EVERYONE in nodes.values()
    assert len({start for start, _, _ in edges}) <= hops
    none = admin.get("/api/v2/pathfinding", params={"start_node": EVERYONE, "end_node": "S-1-5-21-0-0-0-1"})
    assert none.status_code == 200 and none.json() == {"data": {}}
    missing = admin.get("/api/v2/pathfinding", params={"start_node": DAVIS})
    assert missing.status_code == 400 and message(missing) == "Missing query parameter: end_node"
    assert live_server.app.openapi()["paths"]["/api/v2/pathfinding"]["get"]["deprecated"] is True
