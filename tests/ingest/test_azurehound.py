"""AzureHound records, hand-made in the shape AzureHound writes (no real AzureHound output is public):
`{"meta": {"type": "azure", ...}, "data": [{"kind": "AZUser", "data": {...}}, ...]}`."""

from __future__ import annotations

from typing import Any

import pytest

from houndgraph.graph.kinds import ADNode, AZEdge, AZNode
from tests.ingest.helpers import Result, read_records

TENANT = "6c12b0b0-b2cc-4a73-8252-0b94bfca2145"
T = TENANT.upper()
SUB = "/subscriptions/bf510275-1a83-4932-988f-8e25e5ae5c80"
RG = f"{SUB}/resourceGroups/prod"
VM = f"{RG}/providers/Microsoft.Compute/virtualMachines/web1"
KV = f"{RG}/providers/Microsoft.KeyVault/vaults/secrets1"
USER, GROUP, SP, APP = "aaaa0000-0000-0000-0000-000000000001", "bbbb", "cccc", "dddd"
OWNER_ROLE = "8e3af657-a8ff-443c-a75c-2fe8c4bcb635"
CONTRIBUTOR_ROLE = "b24988ac-6180-42a0-ab88-20f7382dd24c"
WEBSITE_CONTRIBUTOR = "de139f84-1756-47ae-9be6-808fbbe84772"
APP_ADMIN = "9b895d92-2cd3-44c7-9d02-a6ac2d5ea5c3"
GLOBAL_ADMIN = "62e90394-69f5-4237-9190-012177145e10"


def record(kind: str, **data: Any) -> dict[str, Any]:
    return {"kind": kind, "data": data}


def directory_object(object_id: str, odata: str) -> dict[str, Any]:
    return {"id": object_id, "@odata.type": f"#microsoft.graph.{odata}"}


def arm_assignment(principal: str, scope: str, role: str = OWNER_ROLE) -> dict[str, Any]:
    return {"properties": {"principalId": principal, "scope": scope, "roleDefinitionId": role}}


RECORDS = [
    record("AZTenant", id=f"/tenants/{TENANT}", tenantId=TENANT, displayName="Contoso", collected=True),
    record("AZUser", id=USER, userPrincipalName="alice@contoso.com", accountEnabled=True, displayName="Alice",
           onPremisesSecurityIdentifier="S-1-5-21-1-2-3-1105", onPremisesSyncEnabled=True, tenantId=TENANT,
           tenantName="CONTOSO"),
    record("AZGroup", id=GROUP, displayName="Admins", isAssignableToRole=True, securityEnabled=True,
           onPremisesSecurityIdentifier="", tenantId=TENANT, tenantName="Contoso"),
    record("AZGroupMember", groupId=GROUP, members=[{"member": directory_object(USER, "user"), "groupId": GROUP},
                                                    {"member": directory_object("ffff", "contact")}]),
    record("AZGroupOwner", groupId=GROUP, owners=[{"owner": directory_object(SP, "servicePrincipal")}]),
    record("AZApp", appId=APP, displayName="Payroll", publisherDomain="contoso.com", tenantId=TENANT),
    record("AZAppOwner", appId=APP, owners=[{"owner": directory_object(USER, "user")}]),
    record("AZServicePrincipal", id=SP, appId=APP, displayName="Payroll", appDisplayName="Payroll",
           appOwnerOrganizationId=TENANT, servicePrincipalType="Application", tenantId=TENANT, tenantName="Contoso"),
    record("AZServicePrincipalOwner", servicePrincipalId=SP, owners=[{"owner": directory_object(USER, "user")}]),
    record("AZDevice", id="eeee", displayName="LAPTOP1", operatingSystem="Windows", trustType="AzureAd",
           tenantId=TENANT, tenantName="Contoso"),
    record("AZDeviceOwner", deviceId="eeee", owners=[{"owner": directory_object(USER, "user")}]),
    record("AZRole", id=GLOBAL_ADMIN, displayName="Global Administrator", isBuiltIn=True, isEnabled=True,
           templateId=GLOBAL_ADMIN, tenantId=TENANT, tenantName="Contoso"),
    record("AZRoleAssignment", roleDefinitionId=GLOBAL_ADMIN, tenantId=TENANT, roleAssignments=[
        {"principalId": USER, "roleDefinitionId": GLOBAL_ADMIN, "directoryScopeId": "/"},
        {"principalId": GROUP, "roleDefinitionId": APP_ADMIN, "directoryScopeId": f"/{SP}"},
    ]),
    record("AZAppRoleAssignment", appId="00000003-0000-0000-c000-000000000000", principalType="ServicePrincipal",
           principalId=SP, resourceId="9999", appRoleId="9e3f62cf-ca93-4989-b6ce-bf83c28f9fe8",
           principalDisplayName="Payroll", resourceDisplayName="Microsoft Graph", tenantId=TENANT),
    record("AZAppRoleAssignment", appId="11111111-0000-0000-0000-000000000000", principalType="ServicePrincipal",
           principalId=SP, resourceId="8888", appRoleId="9e3f62cf-ca93-4989-b6ce-bf83c28f9fe8", tenantId=TENANT),
    record("AZSubscription", id=SUB, subscriptionId=SUB.split("/")[-1], displayName="Prod", tenantId=TENANT),
    record("AZSubscriptionOwner", subscriptionId=SUB, owners=[{"owner": arm_assignment(USER, SUB)}]),
    record("AZResourceGroup", id=RG, name="prod", subscriptionId=SUB, tenantId=TENANT),
    record("AZManagementGroup", id="/mg/root", properties={"displayName": "Root"}, tenantId=TENANT,
           tenantName="Contoso"),
    record("AZManagementGroupDescendant", id=SUB, properties={"parent": {"id": "/mg/root"}}),
    record("AZKeyVault", id=KV, name="secrets1", resourceGroup=RG, properties={"enableRbacAuthorization": False},
           tenantId=TENANT),
    record("AZKeyVaultAccessPolicy", keyVaultId=KV, objectId=SP,
           permissions={"keys": ["Get", "List"], "secrets": ["List"], "certificates": []}),
    record("AZKeyVaultOwner", keyVaultId=KV, owners=[{"owner": arm_assignment(GROUP, KV)},
                                                     {"owner": arm_assignment(USER, SUB)}]),
    record("AZKeyVaultKVContributor", keyVaultId=KV, kvContributors=[{"kvContributor": arm_assignment(SP, KV)}]),
    record("AZVM", id=VM, name="web1", resourceGroupId=RG, tenantId=TENANT,
           properties={"vmId": "x", "storageProfile": {"osDisk": {"osType": "Linux"}}},
           identity={"principalId": "sys-sp", "userAssignedIdentities": {"/ua/1": {"clientId": "c",
                                                                                   "principalId": "ua-sp"}}}),
    record("AZVMAdminLogin", virtualMachineId=VM, adminLogins=[{"adminLogin": arm_assignment(USER, RG)}]),
    record("AZVMOwner", virtualMachineId=VM, owners=[{"owner": arm_assignment(GROUP, f"{RG}2")}]),
    record("AZFunctionApp", id=f"{RG}/providers/Microsoft.Web/sites/fn1", name="fn1", resourceGroupId=RG,
           tenantId=TENANT, identity={}),
    record("AZFunctionAppRoleAssignment", objectId=f"{RG}/providers/Microsoft.Web/sites/fn1", roleAssignments=[
        {"roleDefinitionId": f"{SUB}/providers/Microsoft.Authorization/roleDefinitions/{WEBSITE_CONTRIBUTOR}",
         "objectId": f"{RG}/providers/Microsoft.Web/sites/fn1",
         "assignee": {"properties": {"principalId": USER, "scope": f"{RG}/providers/Microsoft.Web/sites/fn1"}}},
        {"roleDefinitionId": CONTRIBUTOR_ROLE, "objectId": f"{RG}/providers/Microsoft.Web/sites/fn1",
         "assignee": {"properties": {"principalId": GROUP, "scope": RG}}},
    ]),
    record("AZManagedCluster", id=f"{RG}/providers/aks/k1", name="k1", resourceGroupId=RG, subscriptionId="sub1",
           properties={"nodeResourceGroup": "MC_nodes"}, tenantId=TENANT),
    record("AZRoleEligibilityScheduleInstance", principalId=GROUP, roleDefinitionId=GLOBAL_ADMIN, tenantId=TENANT),
    record("AZRoleManagementPolicyAssignment", roleDefinitionId=GLOBAL_ADMIN, tenantId=TENANT,
           endUserAssignmentRequiresApproval=True, endUserAssignmentUserApprovers=[USER],
           endUserAssignmentGroupApprovers=[]),
    record("AZSomethingNew", id="zzz"),
]  # fmt: skip


@pytest.fixture(scope="module")
def azure(tmp_path_factory: pytest.TempPathFactory) -> Result:
    return read_records(tmp_path_factory.mktemp("azure"), "azure", RECORDS)


def test_every_node_is_an_azure_node_with_its_base_kind(azure: Result) -> None:
    az_nodes = [node for node in azure.nodes if node.kinds[-1] == AZNode.Base]
    assert {node.kinds[0] for node in az_nodes} == {
        AZNode.Tenant, AZNode.User, AZNode.Group, AZNode.App, AZNode.ServicePrincipal, AZNode.Device, AZNode.Role,
        AZNode.Subscription, AZNode.ResourceGroup, AZNode.ManagementGroup, AZNode.KeyVault, AZNode.VM,
        AZNode.FunctionApp, AZNode.ManagedCluster,
    }  # fmt: skip
    # The synced user's on-premises counterpart, for hybrid analysis; an empty SID gives none.
    assert [node.kinds for node in azure.nodes if node.kinds[-1] == ADNode.Base] == [(ADNode.User, ADNode.Base)]
    assert azure.warnings == [
        "group member FFFF has an unknown directory object type: skipped",
        "AzureHound record kind 'AZSomethingNew' is not ingested: records skipped",
    ]


def test_tenant_and_user_properties(azure: Result) -> None:
    tenant = azure.node(T)
    assert tenant.properties == {"displayname": "Contoso", "name": "CONTOSO", "tenantid": T, "collected": True}
    alice = azure.node(USER.upper())
    assert alice.properties["name"] == "ALICE@CONTOSO.COM"
    assert alice.properties["onpremid"] == "S-1-5-21-1-2-3-1105" and alice.properties["onpremsyncenabled"] is True
    assert "title" not in alice.properties  # not collected: left out rather than written as null
    assert azure.node("S-1-5-21-1-2-3-1105").properties == {}
    assert azure.edge(AZEdge.Contains, T, USER.upper()).start.kind == AZNode.Tenant
    assert azure.node(GROUP.upper()).properties["name"] == "ADMINS@CONTOSO"


def test_memberships_and_ownerships(azure: Result) -> None:
    member = azure.edge(AZEdge.MemberOf, USER.upper(), GROUP.upper())
    assert (member.start.kind, member.end.kind) == (AZNode.User, AZNode.Group)
    assert azure.edge(AZEdge.Owns, SP.upper(), GROUP.upper()).start.kind == AZNode.ServicePrincipal
    assert azure.edge(AZEdge.Owns, USER.upper(), APP.upper()).end.kind == AZNode.App
    assert azure.edge(AZEdge.Owns, USER.upper(), SP.upper())
    assert azure.edge(AZEdge.Owns, USER.upper(), "EEEE").end.kind == AZNode.Device
    assert azure.edge(AZEdge.RunsAs, APP.upper(), SP.upper())


def test_role_assignments(azure: Result) -> None:
    role = f"{GLOBAL_ADMIN}@{TENANT}".upper()
    definition, policy = [node for node in azure.nodes if node.objectid == role]  # two records that merge
    assert definition.properties["name"] == "GLOBAL ADMINISTRATOR@CONTOSO"
    assert azure.edge(AZEdge.HasRole, USER.upper(), role).properties == {"scope": T}
    app_admin = f"{APP_ADMIN}@{TENANT}".upper()
    assert azure.edge(AZEdge.HasRole, GROUP.upper(), app_admin).properties == {"scope": SP.upper()}
    # An app admin scoped to one service principal can add secrets to it alone.
    assert azure.triples(AZEdge.AppAdmin) == {(GROUP.upper(), AZEdge.AppAdmin, SP.upper())}
    assert azure.triples(AZEdge.RoleManagementReadWriteDirectory) == {
        (SP.upper(), AZEdge.RoleManagementReadWriteDirectory, "9999")
    }
    assert azure.edge(AZEdge.RoleEligible, GROUP.upper(), role)
    assert azure.edge(AZEdge.RoleApprover, USER.upper(), role).start.kind == AZNode.User
    assert policy.properties["enduserassignmentrequiresapproval"] is True
    assert policy.properties["enduserassignmentuserapprovers"] == [USER.upper()]


def test_resource_hierarchy(azure: Result) -> None:
    assert azure.edge(AZEdge.Contains, T, SUB.upper())
    assert azure.edge(AZEdge.Contains, SUB.upper(), RG.upper()).end.kind == AZNode.ResourceGroup
    assert azure.edge(AZEdge.Contains, "/MG/ROOT", SUB.upper()).start.kind == AZNode.ManagementGroup
    assert azure.edge(AZEdge.Contains, T, "/MG/ROOT")
    assert azure.edge(AZEdge.Contains, RG.upper(), KV.upper())
    assert azure.edge(AZEdge.Contains, RG.upper(), VM.upper()).end.kind == AZNode.VM
    assert azure.node(VM.upper()).properties["operatingsystem"] == "Linux"
    cluster = azure.node(f"{RG}/providers/aks/k1".upper())
    assert cluster.properties["noderesourcegroupid"] == "/SUBSCRIPTIONS/SUB1/RESOURCEGROUPS/MC_NODES"
    assert azure.edge(AZEdge.NodeResourceGroup, cluster.objectid, "/SUBSCRIPTIONS/SUB1/RESOURCEGROUPS/MC_NODES")


def test_rbac_edges_respect_scope(azure: Result) -> None:
    assert azure.triples(AZEdge.Owner) == {
        (USER.upper(), AZEdge.Owner, SUB.upper()),
        (GROUP.upper(), AZEdge.Owner, KV.upper()),  # the subscription-scoped vault owner is not listed here
    }
    assert azure.triples(AZEdge.KeyVaultContributor) == {(SP.upper(), AZEdge.KeyVaultContributor, KV.upper())}
    assert azure.triples(AZEdge.GetKeys) == {(SP.upper(), AZEdge.GetKeys, KV.upper())}
    assert not azure.edges_of(AZEdge.GetSecrets) and not azure.edges_of(AZEdge.GetCertificates)
    # VM admin login granted on the resource group covers the VM in it.
    assert azure.triples(AZEdge.VMAdminLogin) == {(USER.upper(), AZEdge.VMAdminLogin, VM.upper())}
    function_app = f"{RG}/providers/Microsoft.Web/sites/fn1".upper()
    assert azure.triples(AZEdge.WebsiteContributor) == {(USER.upper(), AZEdge.WebsiteContributor, function_app)}
    assert not azure.edges_of(AZEdge.Contributor)


def test_managed_identities(azure: Result) -> None:
    assert azure.triples(AZEdge.ManagedIdentity) == {
        (VM.upper(), AZEdge.ManagedIdentity, "SYS-SP"),
        (VM.upper(), AZEdge.ManagedIdentity, "UA-SP"),
    }
