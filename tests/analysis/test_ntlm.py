"""CoerceAndRelayNTLMTo* on small graphs."""

from __future__ import annotations

from houndgraph.analysis.ad import ntlm
from houndgraph.analysis.adcs import pki
from houndgraph.graph.kinds import ADEdge, ADNode
from tests.analysis.adcs_fixtures import pki_graph, template
from tests.analysis.graphs import DOMAIN_SID, Graph

AUTH = "Authenticated Users"


def domain_with_auth_users(graph: Graph, functionallevel: str = "2016") -> None:
    graph.domain("D", functionallevel=functionallevel)
    graph.node(AUTH, ADNode.Group, objectid="D.LOCAL-S-1-5-11", domainsid=DOMAIN_SID)


def computer(graph: Graph, name: str, **properties: object) -> None:
    graph.node(name, ADNode.Computer, domainsid=DOMAIN_SID, **{"restrictoutboundntlm": False, **properties})


def test_smb_relay_needs_an_other_unprotected_admin_computer(graph: Graph) -> None:
    domain_with_auth_users(graph)
    computer(graph, "Target", smbsigning=False)
    computer(graph, "Signed", smbsigning=True)
    computer(graph, "Relay")
    computer(graph, "Restricted", restrictoutboundntlm=True)
    graph.node("Server Admins", ADNode.Group)
    graph.edge("Relay", ADEdge.MemberOf, "Server Admins")
    graph.edges(ADEdge.AdminTo, [("Server Admins", "Target"), ("Relay", "Signed"), ("Target", "Target")])
    graph.node("Lonely", ADNode.Computer, domainsid=DOMAIN_SID, smbsigning=False, restrictoutboundntlm=False)
    graph.edge("Restricted", ADEdge.AdminTo, "Lonely")
    graph.run(ntlm.RULE)
    assert graph.derived(ADEdge.CoerceAndRelayNTLMToSMB) == {(AUTH, "Target")}


def test_protected_users_stop_the_relay_on_recent_functional_levels(graph: Graph) -> None:
    domain_with_auth_users(graph, functionallevel="2016")
    computer(graph, "Target", smbsigning=False)
    computer(graph, "Relay")
    graph.node("Protected Users", ADNode.Group, objectid=f"{DOMAIN_SID}-525", domainsid=DOMAIN_SID)
    graph.edge("Relay", ADEdge.MemberOf, "Protected Users")
    graph.edge("Relay", ADEdge.AdminTo, "Target")
    graph.run(ntlm.RULE)
    assert graph.derived(ADEdge.CoerceAndRelayNTLMToSMB) == set()
    graph.node("D", ADNode.Domain, objectid=DOMAIN_SID, functionallevel="2012")
    graph.run(ntlm.RULE)
    assert graph.derived(ADEdge.CoerceAndRelayNTLMToSMB) == {(AUTH, "Target")}


def test_ldap_and_ldaps_relay_to_a_weak_domain_controller(graph: Graph) -> None:
    domain_with_auth_users(graph)
    computer(graph, "DC", isdc=True, ldapavailable=True, ldapsigning=False, ldapsavailable=True, ldapsepa=True)
    computer(graph, "Workstation", webclientrunning=True)
    computer(graph, "No WebClient", webclientrunning=False)
    graph.run(ntlm.RULE)
    assert graph.derived(ADEdge.CoerceAndRelayNTLMToLDAP) == {(AUTH, "Workstation")}
    assert graph.derived(ADEdge.CoerceAndRelayNTLMToLDAPS) == set()  # EPA is on


def test_ldap_relay_not_to_itself(graph: Graph) -> None:
    domain_with_auth_users(graph)
    computer(graph, "DC", isdc=True, ldapavailable=True, ldapsigning=False, webclientrunning=True,
             ldapsavailable=True, ldapsepa=False)
    graph.run(ntlm.RULE)
    assert graph.derived(ADEdge.CoerceAndRelayNTLMToLDAP) == set()
    assert graph.derived(ADEdge.CoerceAndRelayNTLMToLDAPS) == set()


def test_adcs_relay_to_computers_enrolling_on_a_vulnerable_endpoint(graph: Graph) -> None:
    pki_graph(graph)
    graph.node(AUTH, ADNode.Group, objectid="D.LOCAL-S-1-5-11", domainsid=DOMAIN_SID)
    graph.node("CA", ADNode.EnterpriseCA, hasvulnerableendpoint=True)
    template(graph, "Machine", authenticationenabled=True)
    computer(graph, "Workstation")
    computer(graph, "Protected", restrictoutboundntlm=True)
    graph.node("Domain Computers", ADNode.Group, objectid=f"{DOMAIN_SID}-515", domainsid=DOMAIN_SID)
    graph.edges(ADEdge.MemberOf, [("Workstation", "Domain Computers"), ("Protected", "Domain Computers")])
    graph.edge("Domain Computers", ADEdge.Enroll, "Machine")
    graph.edge(AUTH, ADEdge.Enroll, "CA")
    graph.run(pki.CERTIFICATES_RULE, ntlm.RULE)
    assert graph.derived(ADEdge.CoerceAndRelayNTLMToADCS) == {(AUTH, "Workstation")}
    graph.node("CA", ADNode.EnterpriseCA, hasvulnerableendpoint=False)
    graph.run(pki.CERTIFICATES_RULE, ntlm.RULE)
    assert graph.derived(ADEdge.CoerceAndRelayNTLMToADCS) == set()
