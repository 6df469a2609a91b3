"""Entra role edges, Microsoft Graph app-role edges, role approvers and hybrid users on small graphs."""

from __future__ import annotations

from houndgraph.analysis.azure import app_roles as azure_app_roles
from houndgraph.analysis.azure import approvers as azure_approvers
from houndgraph.analysis.azure import common as azure_common
from houndgraph.analysis.azure import hybrid
from houndgraph.analysis.azure import roles as azure_roles
from houndgraph.analysis.context import Context
from houndgraph.analysis.zones import tag_zones
from houndgraph.graph.kinds import TIER_ZERO_TAG, ADEdge, ADNode, AZEdge, AZNode
from tests.analysis.graphs import SEEN, Graph


def tenant(graph: Graph) -> None:
    graph.node("T", AZNode.Tenant, objectid="TENANT-1")


def contained(graph: Graph, name: str, kind: str, **properties: object) -> None:
    # As AzureHound writes them: every object names its tenant.
    graph.node(name, kind, **{"tenantid": "TENANT-1", **properties})
    graph.edge("T", AZEdge.Contains, name)


def role(graph: Graph, name: str, template: str, **properties: object) -> None:
    # AzureHound's role object id: the role template id and the tenant id.
    contained(graph, name, AZNode.Role, objectid=f"{template.upper()}@TENANT-1", templateid=template.lower(),
              **properties)


def directory(graph: Graph) -> None:
    tenant(graph)
    role(graph, "Global Administrator", azure_common.GLOBAL_ADMINISTRATOR)
    role(graph, "Helpdesk Administrator", azure_common.HELPDESK_ADMINISTRATOR)
    role(graph, "Groups Administrator", azure_common.GROUPS_ADMINISTRATOR)
    role(graph, "Directory Readers", azure_common.DIRECTORY_READERS)
    role(graph, "Security Administrator", "194AE4CB-B126-40B2-BD5B-6091B380977D")
    role(graph, "Intune Administrator", azure_common.INTUNE_ADMINISTRATOR)
    for name in ("alice", "bob", "carol", "dave", "erin", "frank"):
        contained(graph, name, AZNode.User)
    contained(graph, "Admins", AZNode.Group, isassignabletorole=True)
    contained(graph, "Staff", AZNode.Group, isassignabletorole=False)
    contained(graph, "SP", AZNode.ServicePrincipal)
    contained(graph, "App", AZNode.App)
    contained(graph, "Laptop", AZNode.Device, operatingsystem="Windows 11")
    contained(graph, "Phone", AZNode.Device, operatingsystem="iOS")
    graph.edge("alice", AZEdge.MemberOf, "Admins")
    graph.edges(AZEdge.HasRole, [("Admins", "Global Administrator"), ("bob", "Helpdesk Administrator"),
                                 ("carol", "Directory Readers"), ("dave", "Security Administrator"),
                                 ("SP", "Groups Administrator"), ("erin", "Intune Administrator")])


def test_tenant_role_edges_and_add_members(graph: Graph) -> None:
    directory(graph)
    graph.run(azure_roles.RULE)
    # Alice holds Global Administrator through the role-assignable group Admins.
    assert graph.derived(AZEdge.GlobalAdmin) == {("Admins", "T"), ("alice", "T")}
    assert graph.derived(AZEdge.PrivilegedRoleAdmin) == set()
    # Erin (Intune Administrator) and SP (Groups Administrator) reach only the non-role-assignable group.
    assert graph.derived(AZEdge.AddMembers) == {("alice", "Admins"), ("alice", "Staff"), ("SP", "Staff"),
                                                ("erin", "Staff")}
    assert graph.derived(AZEdge.ExecuteCommand) == {("erin", "Laptop")}


def test_reset_password_from_role_nodes(graph: Graph) -> None:
    directory(graph)
    graph.run(azure_roles.RULE)
    users = {"alice", "bob", "carol", "dave", "erin", "frank"}
    derived = graph.derived(AZEdge.ResetPassword)
    assert {user for source, user in derived if source == "Global Administrator"} == users
    # Helpdesk: users without roles (frank) or only lesser roles (bob: Helpdesk, carol: Directory Readers);
    # not dave (Security Administrator), erin (Intune) or alice (member of a role-assignable group).
    assert {user for source, user in derived if source == "Helpdesk Administrator"} == {"bob", "carol", "frank"}
    assert {source for source, _ in derived} == {"Global Administrator", "Helpdesk Administrator"}


def test_add_secret_and_add_owner_from_application_roles(graph: Graph) -> None:
    tenant(graph)
    role(graph, "Cloud Application Administrator", azure_common.CLOUD_APPLICATION_ADMINISTRATOR)
    role(graph, "Hybrid Identity Administrator", azure_common.HYBRID_IDENTITY_ADMINISTRATOR)
    contained(graph, "App", AZNode.App)
    contained(graph, "SP", AZNode.ServicePrincipal)
    graph.node("Elsewhere", AZNode.App)
    graph.run(azure_roles.RULE)
    assert graph.derived(AZEdge.AddSecret) == {("Cloud Application Administrator", "App"),
                                               ("Cloud Application Administrator", "SP")}
    assert graph.derived(AZEdge.AddOwner) == {("Hybrid Identity Administrator", "App"),
                                              ("Hybrid Identity Administrator", "SP")}


def test_microsoft_graph_app_roles(graph: Graph) -> None:
    tenant(graph)
    contained(graph, "Microsoft Graph", AZNode.ServicePrincipal)
    contained(graph, "Automation", AZNode.ServicePrincipal)
    contained(graph, "Reader", AZNode.ServicePrincipal)
    contained(graph, "App", AZNode.App)
    contained(graph, "Open", AZNode.Group, isassignabletorole=False)
    contained(graph, "Locked", AZNode.Group, isassignabletorole=True)
    graph.edge("Automation", AZEdge.GroupMemberReadWriteAll, "Microsoft Graph")
    graph.edge("Reader", AZEdge.AppRoleAssignmentReadWriteAll, "Microsoft Graph")
    graph.run(azure_app_roles.RULE)
    assert graph.derived(AZEdge.MGAddMember) == {("Automation", "Open")}
    assert graph.derived(AZEdge.MGGrantAppRoles) == {("Reader", "T")}
    assert graph.derived(AZEdge.MGAddOwner) == set()


def test_role_approvers_named_or_by_default(graph: Graph) -> None:
    tenant(graph)
    role(graph, "Global Administrator", azure_common.GLOBAL_ADMINISTRATOR)
    role(graph, "Privileged Role Administrator", azure_common.PRIVILEGED_ROLE_ADMINISTRATOR)
    contained(graph, "approver", AZNode.User, objectid="USER-9")
    role(graph, "Named", "11111111-1111-1111-1111-111111111111", enduserassignmentrequiresapproval=True,
         enduserassignmentuserapprovers=["USER-9"])
    role(graph, "Default", "22222222-2222-2222-2222-222222222222", isapprovalrequired=True, primaryapprovers=[])
    role(graph, "Free", "33333333-3333-3333-3333-333333333333", isapprovalrequired=False)
    graph.run(azure_approvers.RULE)
    assert graph.derived(AZEdge.RoleApprover) == {
        ("approver", "Named"), ("Global Administrator", "Default"), ("Privileged Role Administrator", "Default")}


def test_hybrid_links_and_creates_the_missing_ad_user(graph: Graph) -> None:
    tenant(graph)
    contained(graph, "synced", AZNode.User, onpremsyncenabled=True, onpremid="S-1-5-21-1-2-3-1104")
    contained(graph, "orphan", AZNode.User, onpremsyncenabled=True, onpremid="S-1-5-21-1-2-3-1105")
    contained(graph, "cloud", AZNode.User, onpremsyncenabled=False, onpremid="S-1-5-21-1-2-3-1106")
    graph.node("jdoe", ADNode.User, objectid="S-1-5-21-1-2-3-1104")
    graph.run(hybrid.RULE)
    assert graph.derived_ids(AZEdge.SyncedToADUser) == {("SYNCED", "S-1-5-21-1-2-3-1104"),
                                                        ("ORPHAN", "S-1-5-21-1-2-3-1105")}
    assert graph.derived_ids(ADEdge.SyncedToEntraUser) == {("S-1-5-21-1-2-3-1104", "SYNCED"),
                                                           ("S-1-5-21-1-2-3-1105", "ORPHAN")}


def test_tier_zero_of_a_tenant(graph: Graph) -> None:
    directory(graph)
    graph.load()
    context = Context(graph.conn, SEEN)
    # The tenant, Admins (holds Global Administrator) and its member alice; with privilege zones, as in
    # the reference, the Global Administrator role itself (a default selector's seed) too.
    assert tag_zones(context).members["Tier Zero"] == 4
    tagged = {row[0] for row in graph.conn.execute(
        "SELECT n.properties->>'name' FROM node n JOIN kind k ON k.id = ANY(n.kind_ids) WHERE k.name = %s",
        (TIER_ZERO_TAG,))}
    assert tagged == {"T", "Admins", "alice", "Global Administrator"}
    meta = graph.conn.execute("SELECT properties FROM node WHERE properties->>'objectid' = 'META-TENANT-1'").fetchone()
    assert meta is not None and meta[0]["tierzero"] == 4 and meta[0]["tenantid"] == "TENANT-1"
