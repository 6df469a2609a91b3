"""AzureHound files (`meta.type` "azure"): each record is `{"kind": "AZUser", "data": {...}}` where `data`
is the Microsoft Graph or Azure Resource Manager object of that kind, as AzureHound writes it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from houndgraph.graph.kinds import AZEdge, AZNode
from houndgraph.ingest import azure_directory as directory
from houndgraph.ingest import azure_resources as resources
from houndgraph.ingest.ad_common import as_str, lower_keys
from houndgraph.ingest.azure_common import (
    AKS_CONTRIBUTOR_ROLE,
    AUTOMATION_CONTRIBUTOR_ROLE,
    LOGIC_APP_CONTRIBUTOR_ROLE,
    VM_CONTRIBUTOR_ROLE,
    WEBSITE_CONTRIBUTOR_ROLE,
)
from houndgraph.ingest.emitter import Emitter

_holders = resources.role_holders
_typed = resources.typed_role_assignments

CONVERTERS: dict[str, Callable[[Emitter, dict[str, Any]], None]] = {
    "AZApp": directory.convert_app,
    "AZAppOwner": directory.convert_app_owner,
    "AZAppRoleAssignment": directory.convert_app_role_assignment,
    "AZDevice": directory.convert_device,
    "AZDeviceOwner": directory.convert_device_owner,
    "AZGroup": directory.convert_group,
    "AZGroupMember": directory.convert_group_member,
    "AZGroupOwner": directory.convert_group_owner,
    "AZRole": directory.convert_role,
    "AZRoleAssignment": directory.convert_role_assignment,
    "AZRoleEligibilityScheduleInstance": directory.convert_role_eligibility,
    "AZRoleManagementPolicyAssignment": directory.convert_role_policy,
    "AZServicePrincipal": directory.convert_service_principal,
    "AZServicePrincipalOwner": directory.convert_service_principal_owner,
    "AZTenant": directory.convert_tenant,
    "AZUser": directory.convert_user,
    "AZManagementGroup": resources.convert_management_group,
    "AZManagementGroupDescendant": resources.convert_management_group_descendant,
    "AZManagementGroupOwner": _holders("managementgroupid", "owners", "owner", AZNode.ManagementGroup, AZEdge.Owner),
    "AZManagementGroupUserAccessAdmin": _holders("managementgroupid", "useraccessadmins", "useraccessadmin",
                                                 AZNode.ManagementGroup, AZEdge.UserAccessAdministrator),
    "AZSubscription": resources.convert_subscription,
    "AZSubscriptionOwner": _holders("subscriptionid", "owners", "owner", AZNode.Subscription, AZEdge.Owner),
    "AZSubscriptionUserAccessAdmin": _holders("subscriptionid", "useraccessadmins", "useraccessadmin",
                                              AZNode.Subscription, AZEdge.UserAccessAdministrator),
    "AZResourceGroup": resources.convert_resource_group,
    "AZResourceGroupOwner": _holders("resourcegroupid", "owners", "owner", AZNode.ResourceGroup, AZEdge.Owner),
    "AZResourceGroupUserAccessAdmin": _holders("resourcegroupid", "useraccessadmins", "useraccessadmin",
                                               AZNode.ResourceGroup, AZEdge.UserAccessAdministrator),
    "AZKeyVault": resources.convert_key_vault,
    "AZKeyVaultAccessPolicy": resources.convert_key_vault_access_policy,
    "AZKeyVaultOwner": _holders("keyvaultid", "owners", "owner", AZNode.KeyVault, AZEdge.Owner),
    "AZKeyVaultUserAccessAdmin": _holders("keyvaultid", "useraccessadmins", "useraccessadmin", AZNode.KeyVault,
                                          AZEdge.UserAccessAdministrator),
    "AZKeyVaultContributor": _holders("keyvaultid", "contributors", "contributor", AZNode.KeyVault,
                                      AZEdge.Contributor),
    "AZKeyVaultKVContributor": _holders("keyvaultid", "kvcontributors", "kvcontributor", AZNode.KeyVault,
                                        AZEdge.KeyVaultContributor),
    "AZVM": resources.resource(AZNode.VM),
    "AZVMAdminLogin": _holders("virtualmachineid", "adminlogins", "adminlogin", AZNode.VM, AZEdge.VMAdminLogin,
                               inherited=True),
    "AZVMAvereContributor": _holders("virtualmachineid", "averecontributors", "averecontributor", AZNode.VM,
                                     AZEdge.AvereContributor),
    "AZVMContributor": _holders("virtualmachineid", "contributors", "contributor", AZNode.VM, AZEdge.Contributor,
                                inherited=True),
    "AZVMVMContributor": _holders("virtualmachineid", "vmcontributors", "vmcontributor", AZNode.VM,
                                  AZEdge.VMContributor, inherited=True),
    "AZVMOwner": _holders("virtualmachineid", "owners", "owner", AZNode.VM, AZEdge.Owner, inherited=True),
    "AZVMUserAccessAdmin": _holders("virtualmachineid", "useraccessadmins", "useraccessadmin", AZNode.VM,
                                    AZEdge.UserAccessAdministrator, inherited=True),
    "AZManagedCluster": resources.convert_managed_cluster,
    "AZManagedClusterRoleAssignment": _typed(AZNode.ManagedCluster, AKS_CONTRIBUTOR_ROLE),
    "AZVMScaleSet": resources.resource(AZNode.VMScaleSet),
    "AZVMScaleSetRoleAssignment": _typed(AZNode.VMScaleSet, VM_CONTRIBUTOR_ROLE),
    "AZContainerRegistry": resources.resource(AZNode.ContainerRegistry),
    "AZContainerRegistryRoleAssignment": _typed(AZNode.ContainerRegistry, None),
    "AZWebApp": resources.resource(AZNode.WebApp),
    "AZWebAppRoleAssignment": _typed(AZNode.WebApp, WEBSITE_CONTRIBUTOR_ROLE),
    "AZFunctionApp": resources.resource(AZNode.FunctionApp),
    "AZFunctionAppRoleAssignment": _typed(AZNode.FunctionApp, WEBSITE_CONTRIBUTOR_ROLE),
    "AZLogicApp": resources.resource(AZNode.LogicApp),
    "AZLogicAppRoleAssignment": _typed(AZNode.LogicApp, LOGIC_APP_CONTRIBUTOR_ROLE),
    "AZAutomationAccount": resources.resource(AZNode.AutomationAccount),
    "AZAutomationAccountRoleAssignment": _typed(AZNode.AutomationAccount, AUTOMATION_CONTRIBUTOR_ROLE),
}  # fmt: skip


def convert_record(out: Emitter, record: dict[str, Any]) -> None:
    kind = as_str(record.get("kind"))
    converter = CONVERTERS.get(kind)
    if converter is None:
        out.warnings.add(f"AzureHound record kind {kind!r} is not ingested: records skipped")
        return
    data = record.get("data")
    if not isinstance(data, dict):
        out.warnings.add(f"an {kind} record has no data object: record skipped")
        return
    first_new_node = len(out.nodes)
    converter(out, lower_keys(data))
    # AzureHound leaves out fields it did not collect; a null would erase what another record stored.
    for node in out.nodes[first_new_node:]:
        node.properties = {key: value for key, value in node.properties.items() if value is not None}
