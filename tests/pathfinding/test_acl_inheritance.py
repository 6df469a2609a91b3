"""GET /api/v2/graphs/acl-inheritance: the containers an inherited ACE comes from (BloodHound 9.x)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from houndgraph.db import Database
from houndgraph.graph.kinds import ADEdge, ADNode
from tests.analysis.graphs import DOMAIN_SID, Graph, drawn
from tests.openapi import assert_matches_own_document
from tests.user.helpers import assert_error

URL = "/api/v2/graphs/acl-inheritance"
ACE = {"isacl": True, "isinherited": True, "inheritancehash": "H-IT"}


@pytest.fixture
def tree(empty_graph: Database) -> Iterator[dict[str, int]]:
    """CORP (domain, holds H-IT) > IT (OU) > ALICE, and > LOCKED (OU, ACL-protected) > BOB; a second ACE
    hash held nowhere; an explicit ACE."""

    def draw(g: Graph) -> None:
        sid = {"domainsid": DOMAIN_SID}
        g.node("CORP", ADNode.Domain, objectid=DOMAIN_SID, inheritancehashes=["H-IT", "H-OTHER-DOMAIN"], **sid)
        g.node("IT", ADNode.OU, inheritancehashes=["H-UNRELATED"], **sid)
        g.node("LOCKED", ADNode.OU, isaclprotected=True, **sid)
        g.node("ALICE", ADNode.User, **sid)
        g.node("BOB", ADNode.User, **sid)
        g.node("HELPDESK", ADNode.Group, **sid)
        g.edge("CORP", ADEdge.Contains, "IT")
        g.edge("IT", ADEdge.Contains, "ALICE")
        g.edge("CORP", ADEdge.Contains, "LOCKED")
        g.edge("LOCKED", ADEdge.Contains, "BOB")
        g.edge("HELPDESK", ADEdge.GenericAll, "ALICE", **ACE)
        g.edge("HELPDESK", ADEdge.GenericAll, "BOB", **ACE)
        g.edge("HELPDESK", ADEdge.WriteDacl, "ALICE", isacl=True, isinherited=True, inheritancehash="H-NOWHERE")
        g.edge("HELPDESK", ADEdge.WriteOwner, "ALICE", isacl=True, isinherited=False)

    with drawn(empty_graph, draw) as ids:
        yield ids


def inheritance(http: httpx.Client, ids: dict[str, int], kind: str, target: str) -> dict:
    response = http.get(URL, params={"edge_type": kind, "source_node": ids["HELPDESK"], "target_node": ids[target]})
    assert response.status_code == 200, response.text
    return response.json()["data"]


def test_the_walk_up_to_the_container_that_holds_the_ace(admin: httpx.Client, tree: dict[str, int]) -> None:
    data = inheritance(admin, tree, ADEdge.GenericAll, "ALICE")
    names = {node["properties"]["name"] for node in data["nodes"].values()}
    assert names == {"HELPDESK", "ALICE", "IT", "CORP"}
    edges = {(e["source"], e["kind"], e["target"]) for e in data["edges"]}
    ids = {name: str(node_id) for name, node_id in tree.items()}
    assert edges == {(ids["CORP"], "Contains", ids["IT"]), (ids["IT"], "Contains", ids["ALICE"]),
                     (ids["HELPDESK"], "GenericAll", ids["ALICE"])}
    assert data["literals"] == []


def test_the_answer_follows_the_documented_schema(admin: httpx.Client, tree: dict[str, int]) -> None:
    response = admin.get(URL, params={"edge_type": ADEdge.GenericAll, "source_node": tree["HELPDESK"],
                                      "target_node": tree["ALICE"]})
    assert response.status_code == 200, response.text
    assert_matches_own_document(admin, response, URL)


@pytest.mark.parametrize(("kind", "target"), [
    (ADEdge.GenericAll, "BOB"),  # inheritance blocked by the ACL-protected OU on the way
    (ADEdge.WriteDacl, "ALICE"),  # no container holds the hash
    (ADEdge.WriteOwner, "ALICE"),  # an explicit ACE inherits nothing
])
def test_no_source_is_an_empty_graph(admin: httpx.Client, tree: dict[str, int], kind: str, target: str) -> None:
    assert inheritance(admin, tree, kind, target) == {"nodes": {}, "edges": [], "literals": []}


@pytest.mark.parametrize(("params", "message"), [
    ({}, "Expected edge_type parameter to be set."),
    ({"edge_type": "GenericAll"}, "Expected source_node parameter to be set."),
    ({"edge_type": "GenericAll", "source_node": "1"}, "Expected target_node parameter to be set."),
    ({"edge_type": ["GenericAll", "Owns"], "source_node": "1", "target_node": "2"}, "Expected only one edge_type."),
    ({"edge_type": "Nope", "source_node": "1", "target_node": "2"}, "Invalid edge requested: Nope"),
    ({"edge_type": "GenericAll", "source_node": "x", "target_node": "2"}, "Invalid value for startID: x"),
    ({"edge_type": "GenericAll", "source_node": "1", "target_node": "y"}, "Invalid value for endID: y"),
])
def test_bad_requests(admin: httpx.Client, empty_graph: Database, params: dict, message: str) -> None:
    assert_error(admin.get(URL, params=params), 400, message)
