"""AZMG* edges from Microsoft Graph application permissions (reference `AppRoleAssignments`).

A Service Principal holding one of these app roles on a Service Principal of the tenant (the Microsoft
Graph resource principal; the ingest writes the grant as an edge named after the permission) can act
on the tenant's objects without any Entra role, in our words:
* Application.ReadWrite.All -> AZMGAddSecret and AZMGAddOwner to every App and Service Principal;
* AppRoleAssignment.ReadWrite.All -> AZMGGrantAppRoles to the tenant;
* Directory.ReadWrite.All and Group.ReadWrite.All -> AZMGAddMember and AZMGAddOwner to every group with
  `isassignabletorole = false`; GroupMember.ReadWrite.All -> AZMGAddMember to those groups;
* RoleManagement.ReadWrite.Directory -> AZMGGrantAppRoles to the tenant, AZMGGrantRole to every role,
  AZMGAddSecret and AZMGAddOwner to every App and Service Principal, AZMGAddMember and AZMGAddOwner to
  every group;
* ServicePrincipalEndpoint.ReadWrite.All -> AZMGAddOwner to every Service Principal.
"""

from __future__ import annotations

from collections import defaultdict

from houndgraph.analysis.azure import common as azure_common
from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import AZEdge, AZNode

PRODUCES = (AZEdge.MGAddSecret, AZEdge.MGAddOwner, AZEdge.MGAddMember, AZEdge.MGGrantAppRoles, AZEdge.MGGrantRole)
_PERMISSIONS = (
    AZEdge.ApplicationReadWriteAll, AZEdge.AppRoleAssignmentReadWriteAll, AZEdge.DirectoryReadWriteAll,
    AZEdge.GroupReadWriteAll, AZEdge.GroupMemberReadWriteAll, AZEdge.RoleManagementReadWriteDirectory,
    AZEdge.ServicePrincipalEndpointReadWriteAll,
)


def compute(ctx: Context) -> Derived:
    data = azure_common.data(ctx)
    result: dict[str, set[tuple[int, int]]] = {kind: set() for kind in PRODUCES}
    grants: dict[str, list[tuple[int, int]]] = {kind: ctx.edges(kind) for kind in _PERMISSIONS}
    service_principals = set(ctx.node_ids(AZNode.ServicePrincipal))
    for tenant in data.tenants:
        tenant_sps = tenant.of(AZNode.ServicePrincipal)
        holders: dict[str, set[int]] = defaultdict(set)
        for kind, pairs in grants.items():
            holders[kind] = {start for start, end in pairs if end in tenant_sps and start in service_principals}
        apps_and_sps = tenant.of(AZNode.App) | tenant_sps
        groups = tenant.of(AZNode.Group)
        unassignable = {g for g in groups if data.properties.get(g, {}).get("isassignabletorole") is False}

        def emit(kinds: tuple[str, ...], sources: set[int], targets: set[int]) -> None:
            for kind in kinds:
                result[kind].update((source, target) for source in sources for target in targets)

        emit((AZEdge.MGAddSecret, AZEdge.MGAddOwner), holders[AZEdge.ApplicationReadWriteAll], apps_and_sps)
        emit((AZEdge.MGGrantAppRoles,), holders[AZEdge.AppRoleAssignmentReadWriteAll], {tenant.id})
        for kind in (AZEdge.DirectoryReadWriteAll, AZEdge.GroupReadWriteAll):
            emit((AZEdge.MGAddMember, AZEdge.MGAddOwner), holders[kind], unassignable)
        emit((AZEdge.MGAddMember,), holders[AZEdge.GroupMemberReadWriteAll], unassignable)
        role_managers = holders[AZEdge.RoleManagementReadWriteDirectory]
        emit((AZEdge.MGGrantAppRoles,), role_managers, {tenant.id})
        emit((AZEdge.MGGrantRole,), role_managers, tenant.of(AZNode.Role))
        emit((AZEdge.MGAddSecret, AZEdge.MGAddOwner), role_managers, apps_and_sps)
        emit((AZEdge.MGAddMember, AZEdge.MGAddOwner), role_managers, groups)
        emit((AZEdge.MGAddOwner,), holders[AZEdge.ServicePrincipalEndpointReadWriteAll], tenant_sps)
    return result


RULE = Rule("AzureAppRoles", PRODUCES, compute)
