"""DCSync, SyncLAPSPassword, ProtectAdminGroups, HasTrustKeys and the well-known links, on small graphs."""

from __future__ import annotations

from houndgraph.analysis.ad import dcsync, laps, protect_admin_groups, trust_keys, wellknown
from houndgraph.graph.kinds import ADEdge, ADNode
from tests.analysis.graphs import DOMAIN_SID, Graph


def test_dcsync_needs_both_rights_and_stops_at_the_group(graph: Graph) -> None:
    graph.domain("D")
    for name in ("Alice", "Bob", "Carol"):
        graph.node(name, ADNode.User)
    graph.node("Replicators", ADNode.Group)
    graph.node("Readers", ADNode.Group)
    graph.edges(ADEdge.MemberOf, [("Bob", "Replicators"), ("Carol", "Readers")])
    graph.edges(ADEdge.GetChanges, [("Alice", "D"), ("Replicators", "D"), ("Readers", "D")])
    graph.edges(ADEdge.GetChangesAll, [("Alice", "D"), ("Replicators", "D")])
    report = graph.run(dcsync.RULE)
    assert graph.derived(ADEdge.DCSync) == {("Alice", "D"), ("Replicators", "D")}
    assert report.edges(ADEdge.DCSync) == 2


def test_dcsync_ignores_uncollected_domains_and_single_rights(graph: Graph) -> None:
    graph.node("Stub", ADNode.Domain, objectid="S-1-5-21-9", collected=False)
    graph.domain("D")
    graph.node("Alice", ADNode.User)
    graph.node("Bob", ADNode.User)
    graph.edges(ADEdge.GetChanges, [("Alice", "Stub"), ("Bob", "D")])
    graph.edges(ADEdge.GetChangesAll, [("Alice", "Stub")])
    graph.run(dcsync.RULE)
    assert graph.derived(ADEdge.DCSync) == set()


def test_rerun_keeps_firstseen_and_drops_edges_no_longer_derived(graph: Graph) -> None:
    graph.domain("D")
    graph.node("Alice", ADNode.User)
    graph.node("Bob", ADNode.User)
    graph.edges(ADEdge.GetChanges, [("Alice", "D"), ("Bob", "D")])
    graph.edges(ADEdge.GetChangesAll, [("Alice", "D"), ("Bob", "D")])
    graph.run(dcsync.RULE)
    first = graph.edge_properties("Alice", ADEdge.DCSync, "D")
    assert first["firstseen"] == first["lastseen"]
    graph.conn.execute(
        "DELETE FROM edge WHERE kind_id = (SELECT id FROM kind WHERE name = %s) AND start_id = "
        "(SELECT id FROM node WHERE properties->>'objectid' = 'BOB')", (ADEdge.GetChangesAll,))
    graph.run(dcsync.RULE)
    again = graph.edge_properties("Alice", ADEdge.DCSync, "D")
    assert again["firstseen"] == first["firstseen"]
    assert again["lastseen"] >= first["lastseen"]
    assert graph.derived(ADEdge.DCSync) == {("Alice", "D")}


def test_no_self_edges(graph: Graph) -> None:
    graph.domain("D")
    graph.edges(ADEdge.GetChanges, [("D", "D")])
    graph.edges(ADEdge.GetChangesAll, [("D", "D")])
    graph.run(dcsync.RULE)
    assert graph.derived(ADEdge.DCSync) == set()


def test_sync_laps_password_reaches_laps_computers_of_the_domain(graph: Graph) -> None:
    graph.domain("D")
    graph.node("Syncer", ADNode.User)
    graph.node("Half", ADNode.User)
    graph.node("PC1", ADNode.Computer, haslaps=True, domainsid=DOMAIN_SID)
    graph.node("PC2", ADNode.Computer, haslaps=False, domainsid=DOMAIN_SID)
    graph.node("Other", ADNode.Computer, haslaps=True, domainsid="S-1-5-21-7")
    graph.edges(ADEdge.GetChanges, [("Syncer", "D"), ("Half", "D")])
    graph.edges(ADEdge.GetChangesInFilteredSet, [("Syncer", "D")])
    graph.run(laps.RULE)
    assert graph.derived(ADEdge.SyncLAPSPassword) == {("Syncer", "PC1")}


def test_protect_admin_groups_from_the_domain_adminsdholder(graph: Graph) -> None:
    graph.domain("D")
    graph.node("AdminSDHolder", ADNode.Container, domainsid=DOMAIN_SID,
               distinguishedname="CN=AdminSDHolder,CN=System,DC=D,DC=LOCAL")
    graph.node("Admin", ADNode.User, domainsid=DOMAIN_SID, adminsdholderprotected=True)
    graph.node("DA", ADNode.Group, domainsid=DOMAIN_SID, adminsdholderprotected=True)
    graph.node("Plain", ADNode.User, domainsid=DOMAIN_SID, adminsdholderprotected=False)
    graph.node("Foreign", ADNode.User, domainsid="S-1-5-21-7", adminsdholderprotected=True)
    graph.node("System", ADNode.Container, domainsid=DOMAIN_SID, distinguishedname="CN=System,DC=D,DC=LOCAL")
    graph.run(protect_admin_groups.RULE)
    assert graph.derived(ADEdge.ProtectAdminGroups) == {("AdminSDHolder", "Admin"), ("AdminSDHolder", "DA")}


def test_has_trust_keys_points_at_the_trust_account(graph: Graph) -> None:
    graph.domain("CORP", netbios="CORP")
    graph.node("PARTNER", ADNode.Domain, objectid="S-1-5-21-7", domainsid="S-1-5-21-7", collected=True)
    graph.node("CORP$", ADNode.User, domainsid="S-1-5-21-7", samaccountname="CORP$")
    graph.node("OTHER$", ADNode.User, domainsid="S-1-5-21-7", samaccountname="OTHER$")
    graph.edge("CORP", ADEdge.CrossForestTrust, "PARTNER")
    graph.run(trust_keys.RULE)
    assert graph.derived(ADEdge.HasTrustKeys) == {("CORP", "CORP$")}


def test_has_trust_keys_needs_a_netbios_name(graph: Graph) -> None:
    graph.domain("CORP")
    graph.node("PARTNER", ADNode.Domain, objectid="S-1-5-21-7", domainsid="S-1-5-21-7")
    graph.node("CORP$", ADNode.User, domainsid="S-1-5-21-7", samaccountname="CORP$")
    graph.edge("CORP", ADEdge.SameForestTrust, "PARTNER")
    graph.run(trust_keys.RULE)
    assert graph.derived(ADEdge.HasTrustKeys) == set()


def test_well_known_groups_are_created_and_nested(graph: Graph) -> None:
    graph.domain("D.LOCAL")
    graph.node("Guest", ADNode.User, objectid=f"{DOMAIN_SID}-501")
    graph.node("DA", ADNode.Base, objectid=f"{DOMAIN_SID}-512")
    graph.run(wellknown.RULE)
    assert graph.derived(ADEdge.MemberOf) == {
        ("DOMAIN USERS@D.LOCAL", "AUTHENTICATED USERS@D.LOCAL"),
        ("DOMAIN COMPUTERS@D.LOCAL", "AUTHENTICATED USERS@D.LOCAL"),
        ("AUTHENTICATED USERS@D.LOCAL", "EVERYONE@D.LOCAL"),
        ("Guest", "EVERYONE@D.LOCAL"),
    }
    kinds = graph.conn.execute(
        "SELECT array_agg(k.name) FROM node n JOIN kind k ON k.id = ANY(n.kind_ids) "
        "WHERE n.properties->>'objectid' = %s",
        (f"{DOMAIN_SID}-512",)).fetchone()
    assert kinds is not None and ADNode.Group in kinds[0]
    objectids = {row[0] for row in graph.conn.execute("SELECT properties->>'objectid' FROM node")}
    assert {"D.LOCAL-S-1-1-0", "D.LOCAL-S-1-5-11", f"{DOMAIN_SID}-513", f"{DOMAIN_SID}-515"} <= objectids
