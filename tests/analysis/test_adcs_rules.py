"""PKI plumbing and the ADCS rules on small hand-made graphs (positive and negative cases)."""

from __future__ import annotations

from houndgraph.analysis.adcs import esc3, esc4, esc9, esc10, esc13, goldencert, pki
from houndgraph.analysis.adcs.pki import EKU_CERT_REQUEST_AGENT
from houndgraph.graph.kinds import ADEdge, ADNode
from tests.analysis.adcs_fixtures import pki_graph, template
from tests.analysis.graphs import DOMAIN_SID, Graph


def test_pki_links_from_thumbprints_and_chains(graph: Graph) -> None:
    pki_graph(graph)
    graph.node("Sub", ADNode.EnterpriseCA, certthumbprint="CC", certchain=["CC", "BB", "AA"])
    graph.node("Policy", ADNode.IssuancePolicy, certtemplateoid="1.2.3", domainsid=DOMAIN_SID)
    graph.node("Other policy", ADNode.IssuancePolicy, certtemplateoid="9.9", domainsid=DOMAIN_SID)
    graph.node("T", ADNode.CertTemplate, certificatepolicy=["1.2.3"], domainsid=DOMAIN_SID)
    graph.run(pki.CERTIFICATES_RULE)
    assert graph.derived(ADEdge.TrustedForNTAuth) == {("CA", "Store")}
    assert graph.derived(ADEdge.IssuedSignedBy) == {("CA", "Root"), ("Sub", "CA")}
    assert graph.derived(ADEdge.EnterpriseCAFor) == set()  # CA's own certificate is not a root
    assert graph.derived(ADEdge.ExtendedByPolicy) == {("T", "Policy")}


def test_golden_cert_needs_a_chained_ca_with_an_enabled_host(graph: Graph) -> None:
    pki_graph(graph)
    graph.run(pki.CERTIFICATES_RULE, goldencert.RULE)
    assert graph.derived(ADEdge.GoldenCert) == {("Host", "D")}


def test_golden_cert_not_without_ntauth_trust(graph: Graph) -> None:
    pki_graph(graph, ntauth=False)
    graph.run(pki.CERTIFICATES_RULE, goldencert.RULE)
    assert graph.derived(ADEdge.GoldenCert) == set()


def test_golden_cert_not_with_a_disabled_host(graph: Graph) -> None:
    pki_graph(graph, host_enabled=False)
    graph.run(pki.CERTIFICATES_RULE, goldencert.RULE)
    assert graph.derived(ADEdge.GoldenCert) == set()


def esc3_graph(graph: Graph, target_signatures: int = 1, restricted: bool = False) -> None:
    pki_graph(graph)
    if restricted:
        graph.node("CA", ADNode.EnterpriseCA, enrollmentagentrestrictionscollected=True,
                   hasenrollmentagentrestrictions=True)
    template(graph, "Agent", effectiveekus=[EKU_CERT_REQUEST_AGENT], schemaversion=2, authorizedsignatures=0)
    template(graph, "Target", schemaversion=2, authorizedsignatures=target_signatures,
             applicationpolicies=[EKU_CERT_REQUEST_AGENT])
    graph.node("Eve", ADNode.User)
    graph.node("Bob", ADNode.User)
    graph.edges(ADEdge.Enroll, [("Eve", "Agent"), ("Eve", "Target"), ("Eve", "CA"), ("Bob", "Target"),
                                ("Bob", "CA")])


def test_enroll_on_behalf_of_and_esc3(graph: Graph) -> None:
    esc3_graph(graph)
    graph.run(pki.CERTIFICATES_RULE, pki.ENROLL_ON_BEHALF_OF_RULE, esc3.RULE)
    assert graph.derived(ADEdge.EnrollOnBehalfOf) == {("Agent", "Target")}
    assert graph.derived(ADEdge.ADCSESC3) == {("Eve", "D")}  # Bob cannot enroll on the agent template


def test_no_enroll_on_behalf_of_when_the_target_needs_no_agent_signature(graph: Graph) -> None:
    esc3_graph(graph, target_signatures=0)
    graph.run(pki.CERTIFICATES_RULE, pki.ENROLL_ON_BEHALF_OF_RULE, esc3.RULE)
    assert graph.derived(ADEdge.EnrollOnBehalfOf) == set()
    assert graph.derived(ADEdge.ADCSESC3) == set()


def test_esc3_with_agent_restrictions_needs_a_delegated_agent(graph: Graph) -> None:
    esc3_graph(graph, restricted=True)
    graph.run(pki.CERTIFICATES_RULE, pki.ENROLL_ON_BEHALF_OF_RULE, esc3.RULE)
    assert graph.derived(ADEdge.ADCSESC3) == set()
    graph.edge("Eve", ADEdge.DelegatedEnrollmentAgent, "Target")
    graph.run(pki.CERTIFICATES_RULE, pki.ENROLL_ON_BEHALF_OF_RULE, esc3.RULE)
    assert graph.derived(ADEdge.ADCSESC3) == {("Eve", "D")}


def test_esc4_from_template_control_or_write_rights(graph: Graph) -> None:
    pki_graph(graph)
    template(graph, "T", authenticationenabled=True)
    for name in ("Owner", "Writer", "Namer", "Bystander"):
        graph.node(name, ADNode.User)
    graph.node("Enrollers", ADNode.Group)
    graph.edges(ADEdge.MemberOf, [(name, "Enrollers") for name in ("Owner", "Writer", "Namer", "Bystander")])
    graph.edge("Enrollers", ADEdge.Enroll, "CA")
    graph.edge("Owner", ADEdge.Owns, "T")
    graph.edges(ADEdge.GenericWrite, [("Writer", "T")])
    graph.edges(ADEdge.Enroll, [("Writer", "T"), ("Namer", "T")])
    graph.edge("Namer", ADEdge.WritePKINameFlag, "T")
    graph.run(pki.CERTIFICATES_RULE, esc4.RULE)
    # Owner controls it; Writer can write and enroll; Namer can set the name flag on a template
    # without manager approval and enroll. Bystander only enrolls on the CA.
    assert graph.derived(ADEdge.ADCSESC4) == {("Owner", "D"), ("Writer", "D"), ("Namer", "D")}


def weak_binding_graph(graph: Graph, binding: int | None, mapping: int | None) -> None:
    pki_graph(graph)
    properties = {key: value for key, value in (("strongcertificatebindingenforcementraw", binding),
                                                ("certificatemappingmethodsraw", mapping)) if value is not None}
    graph.node("DC", ADNode.Computer, **properties)
    graph.edge("DC", ADEdge.DCFor, "D")
    graph.node("Victim", ADNode.User)
    graph.node("Box", ADNode.Computer)
    graph.node("Attacker", ADNode.User)
    graph.node("Staff", ADNode.Group)
    graph.edges(ADEdge.MemberOf, [("Victim", "Staff"), ("Box", "Staff")])
    graph.edge("Staff", ADEdge.Enroll, "CA")
    graph.edges(ADEdge.GenericWrite, [("Attacker", "Victim")])
    graph.node("Machine admin", ADNode.User)
    graph.edges(ADEdge.GenericAll, [("Machine admin", "Box")])


def test_esc9a_needs_weak_binding_and_no_security_extension(graph: Graph) -> None:
    weak_binding_graph(graph, binding=1, mapping=None)
    template(graph, "T", nosecurityextension=True, subjectaltrequireupn=True)
    graph.edge("Staff", ADEdge.Enroll, "T")
    graph.run(pki.CERTIFICATES_RULE, esc9.RULE_9A, esc9.RULE_9B)
    assert graph.derived(ADEdge.ADCSESC9a) == {("Attacker", "D"), ("Machine admin", "D")}
    assert graph.derived(ADEdge.ADCSESC9b) == set()  # the template does not require a DNS name


def test_esc9_not_with_full_enforcement(graph: Graph) -> None:
    weak_binding_graph(graph, binding=2, mapping=None)
    template(graph, "T", nosecurityextension=True, subjectaltrequireupn=True)
    graph.edge("Staff", ADEdge.Enroll, "T")
    graph.run(pki.CERTIFICATES_RULE, esc9.RULE_9A)
    assert graph.derived(ADEdge.ADCSESC9a) == set()


def test_esc9b_and_esc10b_target_computers_through_dns_names(graph: Graph) -> None:
    weak_binding_graph(graph, binding=0, mapping=0x4)
    template(graph, "T", nosecurityextension=True, subjectaltrequiredns=True)
    graph.edge("Staff", ADEdge.Enroll, "T")
    graph.run(pki.CERTIFICATES_RULE, esc9.RULE_9B, esc10.RULE_10B, esc10.RULE_10A)
    assert graph.derived(ADEdge.ADCSESC9b) == {("Machine admin", "D")}
    assert graph.derived(ADEdge.ADCSESC10b) == {("Machine admin", "D")}
    assert graph.derived(ADEdge.ADCSESC10a) == set()


def test_esc10a_needs_upn_mapping(graph: Graph) -> None:
    weak_binding_graph(graph, binding=2, mapping=0x18)  # no UPN bit
    template(graph, "T", subjectaltrequireupn=True)
    graph.edge("Staff", ADEdge.Enroll, "T")
    graph.run(pki.CERTIFICATES_RULE, esc10.RULE_10A)
    assert graph.derived(ADEdge.ADCSESC10a) == set()
    graph.node("DC", ADNode.Computer, certificatemappingmethodsraw=0x1C)
    graph.run(pki.CERTIFICATES_RULE, esc10.RULE_10A)
    assert graph.derived(ADEdge.ADCSESC10a) == {("Attacker", "D"), ("Machine admin", "D")}


def test_esc13_targets_the_group_linked_to_the_issuance_policy(graph: Graph) -> None:
    pki_graph(graph)
    template(graph, "T", certificatepolicy=["1.2.3"], domainsid=DOMAIN_SID)
    template(graph, "Unlinked", certificatepolicy=["4.5.6"], domainsid=DOMAIN_SID)
    graph.node("Policy", ADNode.IssuancePolicy, certtemplateoid="1.2.3", domainsid=DOMAIN_SID)
    graph.node("Privileged", ADNode.Group)
    graph.edge("Policy", ADEdge.OIDGroupLink, "Privileged")
    graph.node("Eve", ADNode.User)
    graph.node("Bob", ADNode.User)
    graph.edges(ADEdge.Enroll, [("Eve", "T"), ("Eve", "CA"), ("Bob", "Unlinked"), ("Bob", "CA")])
    graph.run(pki.CERTIFICATES_RULE, esc13.RULE)
    assert graph.derived(ADEdge.ADCSESC13) == {("Eve", "Privileged")}


def test_esc3_reads_the_enroll_on_behalf_of_edges_derived_earlier_in_the_same_run(graph: Graph) -> None:
    # The first run derives no EnrollOnBehalfOf edge but leaves the kind known; in the second, the edge the
    # EnrollOnBehalfOf rule writes is what ESC3 reads, not what the run found stored when it began.
    esc3_graph(graph, target_signatures=0)
    graph.run(pki.CERTIFICATES_RULE, pki.ENROLL_ON_BEHALF_OF_RULE, esc3.RULE)
    assert graph.derived(ADEdge.ADCSESC3) == set()
    template(graph, "Target", schemaversion=2, authorizedsignatures=1, applicationpolicies=[EKU_CERT_REQUEST_AGENT])
    graph.run(pki.CERTIFICATES_RULE, pki.ENROLL_ON_BEHALF_OF_RULE, esc3.RULE)
    assert graph.derived(ADEdge.EnrollOnBehalfOf) == {("Agent", "Target")}
    assert graph.derived(ADEdge.ADCSESC3) == {("Eve", "D")}
