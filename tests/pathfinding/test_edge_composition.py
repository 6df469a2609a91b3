"""GET /api/v2/graphs/edge-composition on a small hand-made ESC1 graph."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from houndgraph.db import Database
from houndgraph.graph.kinds import ADEdge, ADNode
from tests.analysis.graphs import DOMAIN_SID, Graph, drawn
from tests.user.helpers import assert_error

URL = "/api/v2/graphs/edge-composition"


@pytest.fixture
def esc1(empty_graph: Database) -> Iterator[dict[str, int]]:
    """ALICE (through a group) enrolls on TEMPLATE, published to CA, which chains to the domain D."""
    def draw(g: Graph) -> None:
        g.domain("D")
        sid = {"domainsid": DOMAIN_SID}
        g.node("ALICE", ADNode.User, **sid)
        g.node("ENROLLERS", ADNode.Group, **sid)
        g.node("TEMPLATE", ADNode.CertTemplate, **sid)
        g.node("CA", ADNode.EnterpriseCA, **sid)
        g.node("ROOT", ADNode.RootCA, **sid)
        g.node("UNRELATED", ADNode.User, **sid)
        g.edge("ALICE", ADEdge.MemberOf, "ENROLLERS")
        g.edge("ENROLLERS", ADEdge.Enroll, "TEMPLATE")
        g.edge("ENROLLERS", ADEdge.Enroll, "CA")
        g.edge("TEMPLATE", ADEdge.PublishedTo, "CA")
        g.edge("CA", ADEdge.IssuedSignedBy, "ROOT")
        g.edge("ROOT", ADEdge.RootCAFor, "D")
        g.edge("ALICE", ADEdge.ADCSESC1, "D")
        g.edge("UNRELATED", ADEdge.MemberOf, "ENROLLERS")
        g.edge("ALICE", ADEdge.ForceChangePassword, "UNRELATED")

    with drawn(empty_graph, draw) as ids:
        yield ids


def test_the_composition_of_an_esc1_edge_is_its_certificate_path(admin: httpx.Client, esc1: dict[str, int]) -> None:
    names = {node_id: name for name, node_id in esc1.items()}
    response = admin.get(URL, params={"edge_type": "ADCSESC1", "source_node": esc1["ALICE"],
                                      "target_node": esc1["D"]})
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert {names[int(node_id)] for node_id in data["nodes"]} == {"ALICE", "ENROLLERS", "TEMPLATE", "CA", "ROOT", "D"}
    kinds = {(names[int(e["source"])], e["kind"], names[int(e["target"])]) for e in data["edges"]}
    assert ("ALICE", "MemberOf", "ENROLLERS") in kinds and ("ROOT", "RootCAFor", "D") in kinds
    assert all(kind != "ADCSESC1" for _, kind, _ in kinds)
    assert data["literals"] == []


def test_a_plain_edge_has_no_composition_and_parameters_are_checked(admin: httpx.Client,
                                                                  esc1: dict[str, int]) -> None:
    plain = admin.get(URL, params={"edge_type": "MemberOf", "source_node": esc1["ALICE"],
                                   "target_node": esc1["ENROLLERS"]})
    assert plain.status_code == 200 and plain.json()["data"]["nodes"] == {}
    assert_error(admin.get(URL, params={"source_node": 1, "target_node": 2}), 400,
                 "Expected edge_type parameter to be set.")
    assert_error(admin.get(URL, params={"edge_type": "Nope", "source_node": 1, "target_node": 2}), 400,
                 "Invalid edge requested: Nope")
    missing = admin.get(URL, params={"edge_type": "ADCSESC1", "source_node": esc1["D"], "target_node": esc1["ALICE"]})
    assert missing.status_code == 400
