"""Azure entity panels (`GET /api/v2/azure/{entity_type}?object_id=`): entity types, count keys, related lists.

Names follow the reference (`cmd/api/src/api/v2/azure.go`, `packages/go/analysis/azure/model.go`): the
count keys are the JSON names of its `*Details` structs, mixed spellings included, and the related list
types (`related_entity_type=`) are its `RelatedEntityType` values. As in the reference, every related
list type can be asked of any entity type.
"""

from __future__ import annotations

from dataclasses import dataclass

from houndgraph.graph import azure_related as az
from houndgraph.graph.kinds import AZNode
from houndgraph.graph.related import Relation


@dataclass(frozen=True)
class AzureCount:
    key: str  # the count's key in the panel
    relation: Relation
    group: str | None = None  # the nested object the key sits in (key vault `Readers`)


@dataclass(frozen=True)
class AzureEntity:
    slug: str  # /api/v2/azure/<slug>
    kind: str
    counts: tuple[AzureCount, ...]
    descendents: bool = False  # the `descendents.descendent_counts` breakdown of what the node contains


INBOUND = AzureCount("inbound_object_control", az.INBOUND_CONTROL)
OUTBOUND = AzureCount("outbound_object_control", az.OUTBOUND_CONTROL)
ROLES = AzureCount("roles", az.ROLES)
GROUP_MEMBERSHIP = AzureCount("group_membership", az.GROUP_MEMBERSHIP)
INBOUND_EXECUTION = AzureCount("inboundExecutionPrivileges", az.INBOUND_EXECUTION)


def _inbound_only(slug: str, kind: str) -> AzureEntity:
    return AzureEntity(slug, kind, (INBOUND,))


def _container(slug: str, kind: str) -> AzureEntity:
    return AzureEntity(slug, kind, (INBOUND,), descendents=True)


AZURE_ENTITIES: dict[str, AzureEntity] = {e.slug: e for e in (
    AzureEntity("az-base", AZNode.Base, (OUTBOUND,)),
    AzureEntity("users", AZNode.User, (
        GROUP_MEMBERSHIP, ROLES, AzureCount("execution_privileges", az.OUTBOUND_EXECUTION), OUTBOUND, INBOUND)),
    AzureEntity("groups", AZNode.Group, (
        ROLES, AzureCount("group_members", az.GROUP_MEMBERS), GROUP_MEMBERSHIP, OUTBOUND, INBOUND)),
    _container("tenants", AZNode.Tenant),
    _container("management-groups", AZNode.ManagementGroup),
    _container("subscriptions", AZNode.Subscription),
    _container("resource-groups", AZNode.ResourceGroup),
    AzureEntity("vms", AZNode.VM, (INBOUND_EXECUTION, INBOUND)),
    AzureEntity("devices", AZNode.Device, (INBOUND_EXECUTION, INBOUND)),
    _inbound_only("managed-clusters", AZNode.ManagedCluster),
    _inbound_only("container-registries", AZNode.ContainerRegistry),
    _inbound_only("web-apps", AZNode.WebApp),
    _inbound_only("logic-apps", AZNode.LogicApp),
    _inbound_only("automation-accounts", AZNode.AutomationAccount),
    _inbound_only("function-apps", AZNode.FunctionApp),
    _inbound_only("applications", AZNode.App),
    _inbound_only("vm-scale-sets", AZNode.VMScaleSet),
    AzureEntity("key-vaults", AZNode.KeyVault, (
        AzureCount("KeyReaders", az.KEY_VAULT_KEY_READERS, "Readers"),
        AzureCount("CertificateReaders", az.KEY_VAULT_CERTIFICATE_READERS, "Readers"),
        AzureCount("SecretReaders", az.KEY_VAULT_SECRET_READERS, "Readers"),
        AzureCount("AllReaders", az.KEY_VAULT_ALL_READERS, "Readers"),
        INBOUND)),
    AzureEntity("service-principals", AZNode.ServicePrincipal, (
        ROLES, INBOUND, OUTBOUND,
        AzureCount("inbound-abusable-app-role-assignments", az.INBOUND_APP_ROLES),
        AzureCount("outbound-abusable-app-role-assignments", az.OUTBOUND_APP_ROLES))),
    AzureEntity("roles", AZNode.Role, (
        AzureCount("active_assignments", az.ACTIVE_ASSIGNMENT_HOLDERS),
        AzureCount("pim_assignments", az.PIM_ASSIGNMENT_HOLDERS),
        AzureCount("approvers", az.ROLE_APPROVERS))),
)}

_DESCENDENT_LISTS = {
    "descendent-users": AZNode.User, "descendent-groups": AZNode.Group,
    "descendent-management-groups": AZNode.ManagementGroup, "descendent-subscriptions": AZNode.Subscription,
    "descendent-resource-groups": AZNode.ResourceGroup, "descendent-virtual-machines": AZNode.VM,
    "descendent-managed-clusters": AZNode.ManagedCluster, "descendent-web-apps": AZNode.WebApp,
    "descendent-logic-apps": AZNode.LogicApp, "descendent-automation-accounts": AZNode.AutomationAccount,
    "descendent-key-vaults": AZNode.KeyVault, "descendent-applications": AZNode.App,
    "descendent-service-principals": AZNode.ServicePrincipal, "descendent-devices": AZNode.Device,
    "descendent-vm-scale-sets": AZNode.VMScaleSet, "descendent-container-registries": AZNode.ContainerRegistry,
    "descendent-function-apps": AZNode.FunctionApp,
}

# related_entity_type -> relation.
AZURE_RELATED: dict[str, Relation] = {
    **{slug: az.descendents(kind) for slug, kind in _DESCENDENT_LISTS.items()},
    "active-assignments": az.ACTIVE_ASSIGNMENT_HOLDERS,
    "pim-assignments": az.PIM_ASSIGNMENT_HOLDERS,
    "role-approvers": az.ROLE_APPROVERS,
    "key-readers": az.KEY_VAULT_KEY_READERS,
    "certificate-readers": az.KEY_VAULT_CERTIFICATE_READERS,
    "secret-readers": az.KEY_VAULT_SECRET_READERS,
    "all-readers": az.KEY_VAULT_ALL_READERS,
    "group-members": az.GROUP_MEMBERS,
    "group-membership": az.GROUP_MEMBERSHIP,
    "roles": az.ROLES,
    "outbound-execution-privileges": az.OUTBOUND_EXECUTION,
    "inbound-execution-privileges": az.INBOUND_EXECUTION,
    "outbound-abusable-app-role-assignments": az.OUTBOUND_APP_ROLES,
    "inbound-abusable-app-role-assignments": az.INBOUND_APP_ROLES,
    "outbound-control": az.OUTBOUND_CONTROL,
    "inbound-control": az.INBOUND_CONTROL,
}
