"""Findings computed at the end of a run, on a hand-built domain that holds one of each kind of finding,
and on a hand-built Entra tenant.

The graph is loaded with edges of every catalogued kind written directly (only the PKI plumbing rule
runs, then the closing steps: Tier Zero tagging and findings), so each type is present exactly where
the graph was built to contain it. Impact is checked against a plain breadth-first count per principal.
"""

from __future__ import annotations

from collections import defaultdict, deque
from typing import Any

import psycopg
import pytest

from houndgraph.analysis import AnalysisOptions, run_rules
from houndgraph.analysis.adcs import pki
from houndgraph.analysis.azure import common as azure_common
from houndgraph.analysis.rule_order import finish_run
from houndgraph.graph.kinds import AD_TRAVERSABLE_EDGES, TIER_ZERO_TAG, ADEdge, ADNode, AZEdge, AZNode
from tests.analysis.adcs_fixtures import pki_graph, template
from tests.analysis.graphs import DOMAIN_SID, Graph
from tests.attack_path.graphs import FINDING_TABLES

# Each edge kind into Tier Zero, the type it must produce, and the Tier Zero target it is drawn to.
CHOKE_POINTS = {
    ADEdge.GenericAll: ("T0GenericAll", "Domain Admins"),
    ADEdge.GenericWrite: ("T0GenericWrite", "Domain Admins"),
    ADEdge.WriteDacl: ("T0WriteDACL", "Domain Admins"),
    ADEdge.WriteOwner: ("T0WriteOwner", "Domain Admins"),
    ADEdge.Owns: ("T0Owns", "Domain Admins"),
    ADEdge.AddMember: ("T0AddMember", "Domain Admins"),
    ADEdge.AddSelf: ("T0AddSelf", "Domain Admins"),
    ADEdge.ForceChangePassword: ("T0ForceChangePassword", "Admin"),
    ADEdge.AddKeyCredentialLink: ("T0AddKeyCredentialLink", "Admin"),
    ADEdge.AllExtendedRights: ("T0AllExtendedRights", "Admin"),
    ADEdge.WriteSPN: ("T0WriteSPN", "Admin"),
    ADEdge.HasSIDHistory: ("T0HasSIDHistory", "Admin"),
    ADEdge.DCSync: ("NonT0DCSyncers", "D"),
    ADEdge.GetChangesAll: ("T0GetChangesAll", "D"),
    ADEdge.SyncLAPSPassword: ("T0SyncLAPSPassword", "D"),
    ADEdge.GoldenCert: ("T0GoldenCert", "D"),
    ADEdge.CoerceToTGT: ("T0CoerceToTGT", "D"),
    ADEdge.ADCSESC1: ("T0ADCSESC1", "D"),
    ADEdge.ADCSESC3: ("T0ADCSESC3", "D"),
    ADEdge.ADCSESC4: ("T0ADCSESC4", "D"),
    ADEdge.ADCSESC6a: ("T0ADCSESC6a", "D"),
    ADEdge.ADCSESC6b: ("T0ADCSESC6b", "D"),
    ADEdge.ADCSESC9a: ("T0ADCSESC9a", "D"),
    ADEdge.ADCSESC9b: ("T0ADCSESC9b", "D"),
    ADEdge.ADCSESC10a: ("T0ADCSESC10a", "D"),
    ADEdge.ADCSESC10b: ("T0ADCSESC10b", "D"),
    ADEdge.ADCSESC13: ("T0ADCSESC13", "D"),
    ADEdge.WriteGPLink: ("T0WriteGPLink", "D"),
    ADEdge.AdminTo: ("T0Admins", "DC"),
    ADEdge.CanRDP: ("T0RDP", "DC"),
    ADEdge.ExecuteDCOM: ("T0DCOM", "DC"),
    ADEdge.CanPSRemote: ("T0PSRemote", "DC"),
    ADEdge.SQLAdmin: ("T0SQLAdmin", "DC"),
    ADEdge.AllowedToDelegate: ("T0AllowedToDelegate", "DC"),
    ADEdge.AllowedToAct: ("T0AllowedToAct", "DC"),
    ADEdge.AddAllowedToAct: ("T0AddAllowedToAct", "DC"),
    ADEdge.WriteAccountRestrictions: ("T0WriteAccountRestrictions", "DC"),
    ADEdge.ReadLAPSPassword: ("T0ReadLAPS", "DC"),
    ADEdge.ReadGMSAPassword: ("T0ReadGMSA", "DC"),
    ADEdge.DumpSMSAPassword: ("T0DumpSMSA", "DC"),
    ADEdge.CoerceAndRelayNTLMToSMB: ("T0CoerceAndRelayNTLMToSMB", "DC"),
    ADEdge.CoerceAndRelayNTLMToADCS: ("T0CoerceAndRelayNTLMToADCS", "DC"),
    ADEdge.CoerceAndRelayNTLMToLDAP: ("T0CoerceAndRelayNTLMToLDAP", "DC"),
    ADEdge.CoerceAndRelayNTLMToLDAPS: ("T0CoerceAndRelayNTLMToLDAPS", "DC"),
}


def _ad(graph: Graph, name: str, *kinds: str, **properties: Any) -> str:
    return graph.node(name, *kinds, domainsid=DOMAIN_SID, **properties)


def build(graph: Graph) -> None:
    pki_graph(graph)
    _ad(graph, "Domain Admins", ADNode.Group, objectid=f"{DOMAIN_SID}-512")
    _ad(graph, "Domain Controllers", ADNode.Group, objectid=f"{DOMAIN_SID}-516")
    _ad(graph, "Domain Users", ADNode.Group, objectid=f"{DOMAIN_SID}-513")
    # Named after the domain ("D"), as SharpHound names well-known principals, without a domainsid.
    graph.node("Everyone", ADNode.Group, objectid="D-S-1-1-0")
    _ad(graph, "Admin", ADNode.User, enabled=True, hasspn=True, pwdneverexpires=True)
    _ad(graph, "Admin2", ADNode.User, enabled=True, dontreqpreauth=True)
    _ad(graph, "DC", ADNode.Computer, enabled=True, isdc=True, haslaps=False, unconstraineddelegation=True,
        ldapavailable=True, ldapsigning=False, ldapsavailable=True, ldapsepa=False)
    _ad(graph, "WS1", ADNode.Computer, enabled=True, unconstraineddelegation=True, haslaps=True)
    _ad(graph, "WS2", ADNode.Computer, enabled=True, haslaps=False)
    _ad(graph, "Roastable", ADNode.User, enabled=True, hasspn=True, dontreqpreauth=True, pwdneverexpires=True)
    graph.edges(ADEdge.MemberOf, [("Admin", "Domain Admins"), ("Admin2", "Domain Admins"),
                                  ("DC", "Domain Controllers"), ("Roastable", "Domain Users")])
    for kind, (_, target) in CHOKE_POINTS.items():
        _ad(graph, f"P-{kind}", ADNode.User, enabled=True)
        graph.edge(f"P-{kind}", kind, target)
    graph.edge("WS1", ADEdge.HasSession, "Admin")
    graph.edge("Domain Users", ADEdge.GenericAll, "Domain Admins")
    graph.edge("Everyone", ADEdge.AdminTo, "WS2")
    # Impact: Alice and Bob (members of Helpdesk) reach P-GenericAll; Carol is disabled; Dave reaches nothing.
    for name, enabled in (("Alice", True), ("Bob", True), ("Carol", False), ("Dave", True)):
        _ad(graph, name, ADNode.User, enabled=enabled)
    _ad(graph, "Helpdesk", ADNode.Group)
    graph.edges(ADEdge.MemberOf, [("Alice", "Helpdesk"), ("Bob", "Helpdesk"), ("Carol", "Helpdesk")])
    graph.edge("Helpdesk", ADEdge.ForceChangePassword, f"P-{ADEdge.GenericAll}")
    graph.edge("Dave", ADEdge.GenericAll, "WS2")
    template(graph, "ESC1", enrolleesuppliessubject=True, schemaversion=2, effectiveekus=["1.3.6.1.5.5.7.3.2"])
    template(graph, "AnyPurpose", schemaversion=2, effectiveekus=["2.5.29.37.0"])
    template(graph, "Agent", schemaversion=2, effectiveekus=["1.3.6.1.4.1.311.20.2.1"])
    template(graph, "NoExtension", schemaversion=2, nosecurityextension=True, subjectaltrequireupn=True,
             effectiveekus=["1.3.6.1.5.5.7.3.2"])
    template(graph, "Version1", enrolleesuppliessubject=True, requiresmanagerapproval=True,
             effectiveekus=["1.3.6.1.5.5.7.3.2"])
    template(graph, "Safe", schemaversion=2, requiresmanagerapproval=True, effectiveekus=["1.3.6.1.5.5.7.3.2"])


def findings(conn: psycopg.Connection) -> dict[str, set[tuple[str, str | None]]]:
    """Type -> {(principal name, target name)} of the live findings."""
    found: dict[str, set[tuple[str, str | None]]] = defaultdict(set)
    rows = conn.execute("SELECT finding, principal_props->>'name', target_props->>'name' FROM attack_path_findings "
                        "WHERE deleted_at IS NULL")
    for finding, principal, target in rows:
        found[finding].add((principal, target))
    return dict(found)


@pytest.fixture(autouse=True)
def no_earlier_findings(graph: Graph) -> None:
    """Findings and posture of analyses run earlier on this database are out of sight (the graph's
    connection rolls back at the end, so they come back for whoever needs them)."""
    for table in FINDING_TABLES.split(", "):
        graph.conn.execute(f"DELETE FROM {table}")


@pytest.fixture
def analysed(graph: Graph) -> Graph:
    build(graph)
    graph.load()
    run_rules(graph.conn, (pki.CERTIFICATES_RULE,), finish=finish_run)
    return graph


def test_every_type_is_found_where_the_graph_holds_it_and_nowhere_else(analysed: Graph) -> None:
    expected: dict[str, set[tuple[str, str | None]]] = {
        name: {(f"P-{kind}", target)} for kind, (name, target) in CHOKE_POINTS.items()}
    expected["T0ForceChangePassword"] = {(f"P-{ADEdge.ForceChangePassword}", "Admin")}
    expected |= {
        "T0Logins": {("WS1", "Admin")},
        "LargeDefaultGroupsGenericAll": {("Domain Users", "Domain Admins")},
        "LargeDefaultGroupsAdmins": {("Everyone", "WS2")},
        "LargeDefaultGroupsPathToTierZero": {("Domain Users", None)},
        "Kerberoasting": {("Admin", None)},
        "ASREPRoasting": {("Admin2", None)},
        "T0PasswordNeverExpires": {("Admin", None)},
        "NonDCUnconstrainedDelegation": {("WS1", None)},
        "ComputersWithoutLAPS": {("WS2", None)},
        "DCLDAPSigningDisabled": {("DC", None)},
        "DCLDAPSChannelBindingDisabled": {("DC", None)},
        "ESC1CertTemplate": {("ESC1", None)},
        "ESC2CertTemplate": {("AnyPurpose", None)},
        "ESC3CertTemplate": {("Agent", None)},
        "ESC9CertTemplate": {("NoExtension", None)},
        "ESC15CertTemplate": set(),
        "ESC6CertAuthority": set(),
        "ESC8CertAuthority": set(),
    }
    expected = {name: pairs for name, pairs in expected.items() if pairs}
    assert findings(analysed.conn) == expected


def _independent_impact(conn: psycopg.Connection, principal: str) -> int:
    """Enabled, non-Tier-Zero users and computers of the domain with a path to `principal`: one BFS."""
    inbound: dict[int, set[int]] = defaultdict(set)
    for start, end in conn.execute("SELECT e.start_id, e.end_id FROM edge e JOIN kind k ON k.id = e.kind_id "
                                   "WHERE k.name = ANY(%s)", (sorted(AD_TRAVERSABLE_EDGES),)):
        inbound[end].add(start)
    row = conn.execute("SELECT id FROM node WHERE properties->>'name' = %s", (principal,)).fetchone()
    assert row is not None
    seen, queue = {row[0]}, deque([row[0]])
    while queue:
        for start in inbound[queue.popleft()] - seen:
            seen.add(start)
            queue.append(start)
    eligible = {node for (node,) in conn.execute(
        "SELECT n.id FROM node n WHERE n.kind_ids && (SELECT array_agg(id) FROM kind WHERE name = ANY(%s)) "
        "AND n.properties->'enabled' = 'true'::jsonb AND n.properties->>'domainsid' = %s AND NOT n.kind_ids @> "
        "ARRAY[(SELECT id FROM kind WHERE name = %s)]", ([ADNode.User, ADNode.Computer], DOMAIN_SID, TIER_ZERO_TAG))}
    return len(seen & eligible)


def test_impact_counts_the_enabled_principals_outside_tier_zero_that_reach_the_principal(analysed: Graph) -> None:
    conn = analysed.conn
    eligible = conn.execute("SELECT principal_count FROM attack_path_posture").fetchone()
    assert eligible is not None
    rows = conn.execute("SELECT finding, principal_props->>'name', impact_count, impact_percentage "
                        "FROM attack_path_findings WHERE finding IN ('T0GenericAll', 'T0Logins', 'T0WriteDACL')")
    impacts = {finding: (principal, count, share) for finding, principal, count, share in rows}
    # P-GenericAll itself, Alice and Bob (Carol is disabled).
    assert impacts["T0GenericAll"][1] == 3 == _independent_impact(conn, f"P-{ADEdge.GenericAll}")
    assert impacts["T0WriteDACL"][1] == 1 == _independent_impact(conn, f"P-{ADEdge.WriteDacl}")
    # WS1 is reached by itself and through nothing else.
    assert impacts["T0Logins"][1] == _independent_impact(conn, "WS1")
    assert impacts["T0GenericAll"][2] == pytest.approx(3 / eligible[0])
    roast = conn.execute("SELECT impact_count FROM attack_path_findings WHERE finding = 'Kerberoasting'").fetchone()
    assert roast == (eligible[0],)


def test_posture_counts_exposure_and_tier_zero(analysed: Graph) -> None:
    conn = analysed.conn
    posture = conn.execute("SELECT domain_sid, exposed_count, principal_count, exposure_index, tier_zero_count "
                           "FROM attack_path_posture").fetchall()
    assert len(posture) == 1
    sid, exposed, eligible, index, tier_zero = posture[0]
    assert sid == DOMAIN_SID
    # Dave (GenericAll on WS2, which reaches nothing), WS2 and P-GetChangesAll (half of DCSync is no path)
    # stay out of the exposed set; Carol is disabled and not counted; Roastable reaches Tier Zero through
    # Domain Users' GenericAll on Domain Admins.
    assert eligible - exposed == 3
    assert index == pytest.approx(100 * exposed / eligible)
    tag_count = conn.execute("SELECT count(*) FROM node WHERE kind_ids @> ARRAY[(SELECT id FROM kind WHERE name = %s)]"
                             " AND (properties->>'domainsid' = %s OR properties->>'objectid' = %s)",
                             (TIER_ZERO_TAG, DOMAIN_SID, DOMAIN_SID)).fetchone()
    assert tag_count == (tier_zero,)



def test_azure_choke_points_and_exposure_of_a_tenant(graph: Graph) -> None:
    tenant = "TENANT-1"
    graph.node("T", AZNode.Tenant, objectid=tenant, tenantid=tenant)
    # AzureHound names a directory role "<template id>@<tenant id>"; the default Tier Zero selector matches that.
    graph.node("Global Administrator", AZNode.Role, objectid=f"{azure_common.GLOBAL_ADMINISTRATOR}@{tenant}",
               templateid=azure_common.GLOBAL_ADMINISTRATOR.lower(), tenantid=tenant)
    graph.edge("T", AZEdge.Contains, "Global Administrator")
    for name in ("alice", "bob", "carol", "frank"):
        graph.node(name, AZNode.User, tenantid=tenant, enabled=True)
        graph.edge("T", AZEdge.Contains, name)
    graph.node("Admins", AZNode.Group, tenantid=tenant)
    graph.node("SP", AZNode.ServicePrincipal, tenantid=tenant)
    graph.edge("alice", AZEdge.MemberOf, "Admins")
    graph.edge("Admins", AZEdge.HasRole, "Global Administrator")
    graph.edge("bob", AZEdge.ResetPassword, "alice")
    graph.edge("SP", AZEdge.RoleManagementReadWriteDirectory, "T")
    graph.edge("carol", AZEdge.Owns, "SP")
    graph.load()
    run_rules(graph.conn, (), finish=finish_run)
    assert findings(graph.conn) == {
        "T0AZResetPassword": {("bob", "alice")},
        "T0AZMGRoleManagement_ReadWrite_Directory": {("SP", "T")},
    }
    impacts = dict(graph.conn.execute("SELECT finding, impact_count FROM attack_path_findings").fetchall())
    # bob reaches himself; carol owns SP (a service principal is not counted, users are).
    assert impacts == {"T0AZResetPassword": 1, "T0AZMGRoleManagement_ReadWrite_Directory": 1}
    posture = graph.conn.execute("SELECT domain_sid, exposed_count, principal_count, tier_zero_count "
                                 "FROM attack_path_posture").fetchall()
    # Of bob, carol and frank (alice is Tier Zero) only bob has a path: the app role is a finding but not an
    # edge path finding follows (analysis turns it into AZMGGrantRole when it runs). Tier Zero: the tenant,
    # the Global Administrator role (a default selector), Admins holding it and alice, Admins' member.
    assert posture == [(tenant, 1, 3, 4)]
    zero = graph.conn.execute("SELECT count(*) FROM attack_path_risk_counts WHERE domain_sid = %s "
                              "AND finding = 'T0GenericAll'", (tenant,)).fetchone()
    assert zero == (0,)  # AD types are not charted for a tenant


def test_exposure_follows_the_edge_kinds_extensions_declare_traversable(graph: Graph) -> None:
    """An OpenGraph edge from an eligible user into Tier Zero exposes the user once an uploaded extension declares
    its kind traversable (the worker passes the kinds in: `extension.service.traversable_edge_kinds_on`), though
    the graph and the zones are as they were."""
    tenant = "TENANT-2"
    graph.node("T", AZNode.Tenant, objectid=tenant, tenantid=tenant)
    graph.node("Global Administrator", AZNode.Role, objectid=f"{azure_common.GLOBAL_ADMINISTRATOR}@{tenant}",
               templateid=azure_common.GLOBAL_ADMINISTRATOR.lower(), tenantid=tenant)
    graph.edge("T", AZEdge.Contains, "Global Administrator")
    for name in ("alice", "frank"):
        graph.node(name, AZNode.User, tenantid=tenant, enabled=True)
    graph.edge("alice", AZEdge.HasRole, "Global Administrator")
    graph.edge("frank", "OGX_Controls", "alice")
    graph.load()

    def exposed(*traversable: str) -> list[tuple[str, int, int]]:
        run_rules(graph.conn, (), options=AnalysisOptions(extension_traversable_edges=traversable),
                  finish=finish_run)
        return graph.conn.execute("SELECT domain_sid, exposed_count, principal_count FROM attack_path_posture "
                                  "ORDER BY created_at DESC LIMIT 1").fetchall()

    assert exposed() == [(tenant, 0, 1)]
    assert exposed("OGX_Controls") == [(tenant, 1, 1)]


def test_the_traversable_edges_are_read_whole_whatever_the_size_of_node_ids(graph: Graph) -> None:
    """Four bytes an id while every node id fits in them, eight once one does not: the same edges either way."""
    from datetime import UTC, datetime

    from houndgraph.analysis.context import Context
    from houndgraph.analysis.findings import _traversable_edges

    for name in ("a", "b", "c"):
        graph.node(name, ADNode.User)
    graph.edges(ADEdge.GenericAll, [("a", "b"), ("b", "c")])
    graph.edge("c", ADEdge.MemberOf, "a")
    graph.load()
    stored = "SELECT e.start_id, e.end_id FROM edge e JOIN kind k ON k.id = e.kind_id WHERE k.name = ANY(%s)"

    def read() -> tuple[list[tuple[int, int]], str]:
        starts, ends = _traversable_edges(Context(graph.conn, datetime.now(UTC)))
        return sorted(zip(starts.tolist(), ends.tolist(), strict=True)), str(starts.dtype)

    expected = sorted(graph.conn.execute(stored, (sorted(AD_TRAVERSABLE_EDGES),)).fetchall())
    assert read() == (expected, "int32") and len(expected) == 3
    (far,) = graph.conn.execute("INSERT INTO node (id, kind_ids, properties) VALUES (2147483653, '{}', "
                                "'{\"objectid\": \"FAR\"}') RETURNING id").fetchone()  # type: ignore[misc]
    graph.conn.execute("INSERT INTO edge (start_id, end_id, kind_id) SELECT n.id, %s, k.id FROM node n, kind k "
                       "WHERE n.properties->>'objectid' = 'A' AND k.name = 'GenericAll'", (far,))
    expected = sorted(graph.conn.execute(stored, (sorted(AD_TRAVERSABLE_EDGES),)).fetchall())
    assert len(expected) == 4 and any(end == far for _, end in expected)
    assert read() == (expected, "int64")
