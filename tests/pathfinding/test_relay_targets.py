"""GET /api/v2/graphs/relay-targets on small hand-made graphs: the target rules and messages of
reference/behaviour.md §7."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from houndgraph.db import Database
from houndgraph.graph.kinds import ADEdge, ADNode
from tests.analysis.graphs import DOMAIN_SID, Graph, drawn
from tests.openapi import assert_matches_spec

URL = "/api/v2/graphs/relay-targets"
OTHER_SID = "S-1-5-21-9-9-9"


@pytest.fixture
def relay(empty_graph: Database) -> Iterator[dict[str, int]]:
    """Authenticated Users relays to victim VICTIM; DCs and admins of VICTIM with various settings."""
    def draw(g: Graph) -> None:
        g.domain("D")
        g.node("AUTH", ADNode.Group, objectid=f"{DOMAIN_SID}-S-1-5-11", domainsid=DOMAIN_SID)
        sid = {"domainsid": DOMAIN_SID}
        g.node("VICTIM", ADNode.Computer, smbsigning=False, restrictoutboundntlm=False, **sid)
        g.node("DC_OPEN", ADNode.Computer, isdc=True, ldapavailable=True, ldapsigning=False, ldapsavailable=True,
               ldapsepa=False, **sid)
        g.node("DC_SIGNED", ADNode.Computer, isdc=True, ldapavailable=True, ldapsigning=True, ldapsavailable=True,
               ldapsepa=True, **sid)
        g.node("DC_ELSEWHERE", ADNode.Computer, isdc=True, ldapavailable=True, ldapsigning=False,
               domainsid=OTHER_SID)
        g.node("ADMIN_PC", ADNode.Computer, restrictoutboundntlm=False, **sid)
        g.node("NESTED_PC", ADNode.Computer, restrictoutboundntlm=False, **sid)
        g.node("RESTRICTED_PC", ADNode.Computer, restrictoutboundntlm=True, **sid)
        g.node("ADMINS", ADNode.Group, **sid)
        g.node("ALICE", ADNode.User, **sid)
        g.node("CA_VULN", ADNode.EnterpriseCA, hasvulnerableendpoint=True, **sid)
        g.node("CA_SAFE", ADNode.EnterpriseCA, hasvulnerableendpoint=False, **sid)
        for kind in (ADEdge.CoerceAndRelayNTLMToLDAP, ADEdge.CoerceAndRelayNTLMToLDAPS, ADEdge.CoerceAndRelayNTLMToSMB,
                     ADEdge.CoerceAndRelayNTLMToADCS):
            g.edge("AUTH", kind, "VICTIM")
        g.edge("ADMIN_PC", ADEdge.AdminTo, "VICTIM")
        g.edge("RESTRICTED_PC", ADEdge.AdminTo, "VICTIM")
        g.edge("ADMINS", ADEdge.AdminTo, "VICTIM")
        g.edge("NESTED_PC", ADEdge.MemberOf, "ADMINS")
        g.edge("ALICE", ADEdge.MemberOf, "ADMINS")
        g.edge("ALICE", ADEdge.GenericAll, "VICTIM")

    with drawn(empty_graph, draw) as ids:
        yield ids


def targets(client: httpx.Client, ids: dict[str, int], kind: str, source: str = "AUTH") -> set[str]:
    response = client.get(URL, params={"edge_type": kind, "source_node": ids[source], "target_node": ids["VICTIM"]})
    assert response.status_code == 200, response.text
    assert_matches_spec(response, URL)
    data = response.json()["data"]
    assert data["edges"] == [] and data["literals"] == []
    assert all("properties" in node for node in data["nodes"].values())
    return {node["label"] for node in data["nodes"].values()}


def test_relay_targets_per_kind(admin: httpx.Client, relay: dict[str, int]) -> None:
    assert targets(admin, relay, ADEdge.CoerceAndRelayNTLMToLDAP) == {"DC_OPEN"}
    assert targets(admin, relay, ADEdge.CoerceAndRelayNTLMToLDAPS) == {"DC_OPEN"}
    assert targets(admin, relay, ADEdge.CoerceAndRelayNTLMToSMB) == {"ADMIN_PC", "NESTED_PC"}
    assert targets(admin, relay, ADEdge.CoerceAndRelayNTLMToADCS) == {"CA_VULN"}
    # Any other existing kind has no relay targets.
    assert targets(admin, relay, ADEdge.GenericAll, source="ALICE") == set()


@pytest.mark.parametrize(("params", "expected"), [
    ({"source_node": "1", "target_node": "2"}, "Expected edge_type parameter to be set."),
    ({"edge_type": "AdminTo", "target_node": "2"}, "Expected source_node parameter to be set."),
    ({"edge_type": "AdminTo", "source_node": "1"}, "Expected target_node parameter to be set."),
    ({"edge_type": ["AdminTo", "MemberOf"], "source_node": "1", "target_node": "2"}, "Expected only one edge_type."),
    ({"edge_type": "NotAKind", "source_node": "1", "target_node": "2"}, "Invalid edge requested: NotAKind"),
    ({"edge_type": "AdminTo", "source_node": "x", "target_node": "2"}, "Invalid value for startID: x"),
    ({"edge_type": "AdminTo", "source_node": "1", "target_node": "9" * 11}, "Invalid value for endID: " + "9" * 11),
])
def test_relay_target_validation(admin: httpx.Client, relay: dict[str, int], params: dict, expected: str) -> None:
    response = admin.get(URL, params=params)
    assert response.status_code == 400
    assert response.json()["errors"][0]["message"] == expected


def test_missing_edge(admin: httpx.Client, relay: dict[str, int]) -> None:
    response = admin.get(URL, params={"edge_type": "AdminTo", "source_node": relay["ALICE"],
                                      "target_node": relay["VICTIM"]})
    assert response.status_code == 400
    assert response.json()["errors"][0]["message"].startswith("Could not find edge matching criteria: ")
