"""Edges from Entra role assignments (reference `UserRoleAssignments`, `addSecret`, `CreateAZAddOwnerEdge`,
`ExecuteCommand`), in our words. For each tenant (roles, holders and contents: see `azure_common`):
* AZGlobalAdmin / AZPrivilegedRoleAdmin / AZPrivilegedAuthAdmin: every holder of Global Administrator /
  Privileged Role Administrator / Privileged Authentication Administrator -> the tenant.
* AZAddMembers: Users and Service Principals holding Global Administrator or Privileged Role
  Administrator -> every group of the tenant; those holding Groups Administrator, Directory Writers,
  Identity Governance Administrator, User Administrator, Intune Administrator, Knowledge Administrator
  or Knowledge Manager -> the groups with `isassignabletorole = false`.
* AZResetPassword, from the *role node* to users of the tenant: Global Administrator, Privileged
  Authentication Administrator and Partner Tier2 Support -> every user; Helpdesk, Authentication,
  User and Password Administrators -> users without any role, or whose roles are all in that role's
  list of lesser roles; Partner Tier1 Support -> users without roles. The limited ones never reach a
  member of a role-assignable group (`isassignabletorole = true`).
* AZAddSecret, from the role node: Application Administrator and Cloud Application Administrator ->
  every App and Service Principal of the tenant. AZAddOwner, from the role node: Hybrid Identity
  Administrator, Partner Tier1 / Tier2 Support and Directory Synchronization Accounts -> the same.
* AZExecuteCommand: holders of Intune Administrator -> every device of the tenant whose
  `operatingsystem` contains "windows" (any case).
"""

from __future__ import annotations

from typing import Any

from houndgraph.analysis.azure import common as roles
from houndgraph.analysis.azure.common import Tenant
from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import AZEdge, AZNode

ADD_MEMBERS_ALL_GROUPS = (roles.GLOBAL_ADMINISTRATOR, roles.PRIVILEGED_ROLE_ADMINISTRATOR)
ADD_MEMBERS_UNASSIGNABLE_GROUPS = (
    roles.GROUPS_ADMINISTRATOR, roles.DIRECTORY_WRITERS, roles.IDENTITY_GOVERNANCE_ADMINISTRATOR,
    roles.USER_ADMINISTRATOR, roles.INTUNE_ADMINISTRATOR, roles.KNOWLEDGE_ADMINISTRATOR, roles.KNOWLEDGE_MANAGER,
)
RESET_ANY_USER = (roles.GLOBAL_ADMINISTRATOR, roles.PRIVILEGED_AUTHENTICATION_ADMINISTRATOR,
                  roles.PARTNER_TIER2_SUPPORT)
# Limited password administrators: the roles their targets may hold (and nothing else).
RESET_LIMITED: dict[str, frozenset[str]] = {
    roles.HELPDESK_ADMINISTRATOR: frozenset({
        roles.REPORTS_READER, roles.MESSAGE_CENTER_READER, roles.HELPDESK_ADMINISTRATOR, roles.GUEST_INVITER,
        roles.DIRECTORY_READERS, roles.PASSWORD_ADMINISTRATOR, roles.USAGE_SUMMARY_REPORTS_READER}),
    roles.AUTHENTICATION_ADMINISTRATOR: frozenset({
        roles.AUTHENTICATION_ADMINISTRATOR, roles.REPORTS_READER, roles.MESSAGE_CENTER_READER, roles.GUEST_INVITER,
        roles.DIRECTORY_READERS, roles.PASSWORD_ADMINISTRATOR, roles.USAGE_SUMMARY_REPORTS_READER}),
    roles.USER_ADMINISTRATOR: frozenset({
        roles.USER_ADMINISTRATOR, roles.REPORTS_READER, roles.MESSAGE_CENTER_READER, roles.HELPDESK_ADMINISTRATOR,
        roles.GUEST_INVITER, roles.DIRECTORY_READERS, roles.PASSWORD_ADMINISTRATOR,
        roles.USAGE_SUMMARY_REPORTS_READER, roles.GROUPS_ADMINISTRATOR}),
    roles.PASSWORD_ADMINISTRATOR: frozenset({roles.PASSWORD_ADMINISTRATOR, roles.GUEST_INVITER,
                                             roles.DIRECTORY_READERS}),
    roles.PARTNER_TIER1_SUPPORT: frozenset(),
}
ADD_SECRET_ROLES = (roles.APPLICATION_ADMINISTRATOR, roles.CLOUD_APPLICATION_ADMINISTRATOR)
ADD_OWNER_ROLES = (roles.HYBRID_IDENTITY_ADMINISTRATOR, roles.PARTNER_TIER1_SUPPORT, roles.PARTNER_TIER2_SUPPORT,
                   roles.DIRECTORY_SYNCHRONIZATION_ACCOUNTS)
TENANT_ROLE_EDGES = {
    AZEdge.GlobalAdmin: roles.GLOBAL_ADMINISTRATOR,
    AZEdge.PrivilegedRoleAdmin: roles.PRIVILEGED_ROLE_ADMINISTRATOR,
    AZEdge.PrivilegedAuthAdmin: roles.PRIVILEGED_AUTHENTICATION_ADMINISTRATOR,
}
PRODUCES = (*TENANT_ROLE_EDGES, AZEdge.AddMembers, AZEdge.ResetPassword, AZEdge.AddSecret, AZEdge.AddOwner,
            AZEdge.ExecuteCommand)


def compute(ctx: Context) -> Derived:
    data = roles.data(ctx)
    result: dict[str, set[tuple[int, int]]] = {kind: set() for kind in PRODUCES}
    for tenant in data.tenants:
        for kind, template in TENANT_ROLE_EDGES.items():
            result[kind].update((principal, tenant.id) for principal in tenant.principals_with(template))
        _add_members(tenant, data.properties, result[AZEdge.AddMembers])
        _reset_password(tenant, data, result[AZEdge.ResetPassword])
        apps = tenant.of(AZNode.App) | tenant.of(AZNode.ServicePrincipal)
        for kind, granting in ((AZEdge.AddSecret, ADD_SECRET_ROLES), (AZEdge.AddOwner, ADD_OWNER_ROLES)):
            result[kind].update((role, target) for role in tenant.role_nodes(*granting) for target in apps)
        windows = {device for device in tenant.of(AZNode.Device)
                   if "windows" in str(data.properties.get(device, {}).get("operatingsystem") or "").lower()}
        admins = tenant.principals_with(roles.INTUNE_ADMINISTRATOR)
        result[AZEdge.ExecuteCommand].update((admin, device) for admin in admins for device in windows)
    return result


def _add_members(tenant: Tenant, properties: dict[int, dict[str, Any]], pairs: set[tuple[int, int]]) -> None:
    actors = tenant.of(AZNode.User) | tenant.of(AZNode.ServicePrincipal)
    groups = tenant.of(AZNode.Group)
    unassignable = {group for group in groups if properties.get(group, {}).get("isassignabletorole") is False}
    for principal in tenant.principals_with(*ADD_MEMBERS_ALL_GROUPS) & actors:
        pairs.update((principal, group) for group in groups)
    for principal in tenant.principals_with(*ADD_MEMBERS_UNASSIGNABLE_GROUPS) & actors:
        pairs.update((principal, group) for group in unassignable)


def _reset_password(tenant: Tenant, data: roles.AzureData, pairs: set[tuple[int, int]]) -> None:
    users = tenant.of(AZNode.User)
    assignable = {group for group in tenant.of(AZNode.Group)
                  if data.properties.get(group, {}).get("isassignabletorole") is True}
    in_assignable = set().union(*(data.membership.members(group) for group in assignable)) if assignable else set()
    for role, template in tenant.roles.items():
        if template in RESET_ANY_USER:
            targets = set(users)
        elif template in RESET_LIMITED:
            allowed = RESET_LIMITED[template]
            targets = {user for user in users if tenant.roles_of.get(user, set()) <= allowed} - in_assignable
        else:
            continue
        pairs.update((role, user) for user in targets)


RULE = Rule("AzureRoles", PRODUCES, compute)
