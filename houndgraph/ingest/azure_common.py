"""Helpers shared by the AzureHound converters: ids, node shapes and the well-known role ids."""

from __future__ import annotations

import re
from typing import Any

from houndgraph.graph.kinds import AZEdge, AZNode
from houndgraph.ingest.ad_common import as_list, as_str, lower_keys
from houndgraph.ingest.emitter import Emitter

TENANT_ID = "tenantid"
NAME = "name"
DISPLAY_NAME = "displayname"

# Azure RBAC built-in role definition ids (the same in every tenant).
OWNER_ROLE = "8e3af657-a8ff-443c-a75c-2fe8c4bcb635"
USER_ACCESS_ADMIN_ROLE = "18d7d88d-d35e-4fb5-a5c3-7773c20a72d9"
CONTRIBUTOR_ROLE = "b24988ac-6180-42a0-ab88-20f7382dd24c"
VM_CONTRIBUTOR_ROLE = "9980e02c-c2be-4d73-94e8-173b1dc7cf3c"
WEBSITE_CONTRIBUTOR_ROLE = "de139f84-1756-47ae-9be6-808fbbe84772"
LOGIC_APP_CONTRIBUTOR_ROLE = "87a39d53-fc1b-424a-814c-f7e04687dc9e"
AUTOMATION_CONTRIBUTOR_ROLE = "f353d9bd-d4a6-484e-a77a-8050b599b867"
AKS_CONTRIBUTOR_ROLE = "ed7f3fbd-7b88-4dd4-9017-9adb7ce333f8"
KIND_BY_RBAC_ROLE: dict[str, AZEdge] = {
    OWNER_ROLE: AZEdge.Owner,
    USER_ACCESS_ADMIN_ROLE: AZEdge.UserAccessAdministrator,
    CONTRIBUTOR_ROLE: AZEdge.Contributor,
    VM_CONTRIBUTOR_ROLE: AZEdge.VMContributor,
    WEBSITE_CONTRIBUTOR_ROLE: AZEdge.WebsiteContributor,
    LOGIC_APP_CONTRIBUTOR_ROLE: AZEdge.LogicAppContributor,
    AUTOMATION_CONTRIBUTOR_ROLE: AZEdge.AutomationContributor,
    AKS_CONTRIBUTOR_ROLE: AZEdge.AKSContributor,
}
# Entra ID directory role template ids.
APPLICATION_ADMIN_ROLE = "9b895d92-2cd3-44c7-9d02-a6ac2d5ea5c3"
CLOUD_APPLICATION_ADMIN_ROLE = "158c047a-c907-4556-b7ef-446551a6b5f7"
PRIVILEGED_ROLE_ADMIN_ROLE = "e8611ab8-c189-46e8-94e1-60213ab1f814"
ADD_SECRET_KIND_BY_ROLE = {APPLICATION_ADMIN_ROLE: AZEdge.AppAdmin, CLOUD_APPLICATION_ADMIN_ROLE: AZEdge.CloudAppAdmin}
# Microsoft Graph and the app roles on it that let a service principal take over the tenant.
MS_GRAPH_APP_ID = "00000003-0000-0000-c000-000000000000"
KIND_BY_GRAPH_APP_ROLE: dict[str, AZEdge] = {
    "1bfefb4e-e0b5-418b-a88f-73c46d2cc8e9": AZEdge.ApplicationReadWriteAll,
    "06b708a9-e830-4db3-a914-8e69da51d44f": AZEdge.AppRoleAssignmentReadWriteAll,
    "19dbc75e-c2e2-444c-a770-ec69d8559fc7": AZEdge.DirectoryReadWriteAll,
    "62a82d76-70ea-41e2-9197-370581804d09": AZEdge.GroupReadWriteAll,
    "dbaae8cf-10b5-4b86-a4a1-f871c94c6695": AZEdge.GroupMemberReadWriteAll,
    "9e3f62cf-ca93-4989-b6ce-bf83c28f9fe8": AZEdge.RoleManagementReadWriteDirectory,
    "89c8469c-83ad-45f7-8ff2-6e3d4285709e": AZEdge.ServicePrincipalEndpointReadWriteAll,
}
_KIND_BY_ODATA_TYPE = {
    "#microsoft.graph.user": AZNode.User,
    "#microsoft.graph.group": AZNode.Group,
    "#microsoft.graph.serviceprincipal": AZNode.ServicePrincipal,
    "#microsoft.graph.device": AZNode.Device,
}
_RESOURCE_GROUP_SCOPE = re.compile(r"^[\w\-/]*/resourceGroups/[0-9a-zA-Z]+$")


def upper(value: Any) -> str:
    return as_str(value).upper()


def node_kinds(kind: str) -> tuple[str, ...]:
    return (kind, AZNode.Base)


def at_tenant(name: Any, tenant_name: Any) -> str:
    """The display name AzureHound objects get: `NAME@TENANT`, upper-cased."""
    return f"{as_str(name)}@{as_str(tenant_name)}".upper()


def role_object_id(role_id: Any, tenant_id: Any) -> str:
    # A directory role's id is the same in every tenant, so the node id pairs it with the tenant.
    return f"{as_str(role_id)}@{as_str(tenant_id)}".upper()


def last_segment(role_definition_id: Any) -> str:
    """A role definition id, lower-cased, whether given bare or as a full ARM resource id."""
    return as_str(role_definition_id).rstrip("/").rsplit("/", 1)[-1].lower()


def directory_object(value: Any) -> tuple[str, str | None]:
    """(id, kind) of a Microsoft Graph directory object; the kind is None for a type we do not graph."""
    obj = lower_keys(value)
    return upper(obj.get("id")), _KIND_BY_ODATA_TYPE.get(as_str(obj.get("@odata.type")).lower())


def within_scope(resource: str, scope: str) -> bool:
    """Whether an RBAC assignment at `scope` covers `resource` (itself, or its resource group)."""
    if resource.lower() == scope.lower():
        return True
    return bool(_RESOURCE_GROUP_SCOPE.match(scope)) and resource.lower().startswith(scope.lower())


def principal_id(assignment: Any) -> str:
    """The principal of an ARM role assignment `{properties: {principalId, scope, ...}}`."""
    return upper(lower_keys(lower_keys(assignment).get("properties")).get("principalid"))


def assignment_scope(assignment: Any) -> str:
    return as_str(lower_keys(lower_keys(assignment).get("properties")).get("scope"))


def emit_identities(out: Emitter, data: dict[str, Any], resource: str, kind: str) -> None:
    """A resource's managed identities: resource -AZManagedIdentity-> service principal."""
    identity = lower_keys(data.get("identity"))
    system = upper(identity.get("principalid"))
    out.edge(resource, kind, system, AZNode.ServicePrincipal, AZEdge.ManagedIdentity, {})
    assigned = identity.get("userassignedidentities")
    for entry in assigned.values() if isinstance(assigned, dict) else as_list(assigned):
        entry = lower_keys(entry)
        if as_str(entry.get("clientid")):
            out.edge(
                resource, kind, upper(entry.get("principalid")), AZNode.ServicePrincipal, AZEdge.ManagedIdentity, {}
            )
