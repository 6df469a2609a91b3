"""A small certificate-services set-up shared by the ADCS and NTLM rule tests."""

from __future__ import annotations

from typing import Any

from houndgraph.graph.kinds import ADEdge, ADNode
from tests.analysis.graphs import DOMAIN_SID, Graph

VALID = {"requiresmanagerapproval": False, "authenticationenabled": True, "schemaversion": 1,
         "authorizedsignatures": 0, "enrolleesuppliessubject": False}


def pki_graph(graph: Graph, *, host_enabled: bool = True, ntauth: bool = True) -> None:
    """Domain D, root CA, NTAuth store and one Enterprise CA 'CA' chained by certificates."""
    graph.domain("D")
    graph.node("Root", ADNode.RootCA, certthumbprint="AA", certchain=["AA"], domainsid=DOMAIN_SID)
    graph.node("Store", ADNode.NTAuthStore, certthumbprints=["BB"] if ntauth else [], domainsid=DOMAIN_SID)
    graph.node("CA", ADNode.EnterpriseCA, certthumbprint="BB", certchain=["BB", "AA"], domainsid=DOMAIN_SID)
    graph.node("Host", ADNode.Computer, enabled=host_enabled)
    graph.edge("Root", ADEdge.RootCAFor, "D")
    graph.edge("Store", ADEdge.NTAuthStoreFor, "D")
    graph.edge("Host", ADEdge.HostsCAService, "CA")


def template(graph: Graph, name: str, **properties: Any) -> None:
    graph.node(name, ADNode.CertTemplate, **{**VALID, **properties})
    graph.edge(name, ADEdge.PublishedTo, "CA")
