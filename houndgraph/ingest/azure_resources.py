"""AzureHound Azure Resource Manager records: management groups, subscriptions, resource groups, key
vaults, VMs and other compute resources, and the RBAC role assignments on them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from houndgraph.graph.kinds import AZEdge, AZNode
from houndgraph.ingest.ad_common import as_list, as_str, lower_keys
from houndgraph.ingest.azure_common import (
    CONTRIBUTOR_ROLE,
    DISPLAY_NAME,
    KIND_BY_RBAC_ROLE,
    NAME,
    OWNER_ROLE,
    TENANT_ID,
    USER_ACCESS_ADMIN_ROLE,
    assignment_scope,
    at_tenant,
    emit_identities,
    last_segment,
    node_kinds,
    principal_id,
    upper,
    within_scope,
)
from houndgraph.ingest.emitter import Emitter

Converter = Callable[[Emitter, dict[str, Any]], None]
KEY_VAULT_GET = "Get"


def convert_management_group(out: Emitter, data: dict[str, Any]) -> None:
    objectid = upper(data.get("id"))
    name = lower_keys(data.get("properties")).get("displayname")
    out.node(objectid, node_kinds(AZNode.ManagementGroup),
             {NAME: at_tenant(name, data.get("tenantname")), TENANT_ID: upper(data.get("tenantid"))})  # fmt: skip
    out.edge(upper(data.get("tenantid")), AZNode.Tenant, objectid, AZNode.ManagementGroup, AZEdge.Contains, {})


def convert_management_group_descendant(out: Emitter, data: dict[str, Any]) -> None:
    parent = upper(lower_keys(lower_keys(data.get("properties")).get("parent")).get("id"))
    out.edge(parent, AZNode.ManagementGroup, upper(data.get("id")), AZNode.Base, AZEdge.Contains, {})


def convert_subscription(out: Emitter, data: dict[str, Any]) -> None:
    objectid = upper(data.get("id"))
    out.node(objectid, node_kinds(AZNode.Subscription), {
        DISPLAY_NAME: data.get("displayname"),
        NAME: upper(data.get("displayname")),
        "subscriptionid": data.get("subscriptionid"),
        TENANT_ID: upper(data.get("tenantid")),
    })  # fmt: skip
    out.edge(upper(data.get("tenantid")), AZNode.Tenant, objectid, AZNode.Subscription, AZEdge.Contains, {})


def convert_resource_group(out: Emitter, data: dict[str, Any]) -> None:
    objectid = upper(data.get("id"))
    out.node(objectid, node_kinds(AZNode.ResourceGroup), {NAME: upper(data.get("name")),
                                                          TENANT_ID: upper(data.get("tenantid"))})  # fmt: skip
    subscription = upper(data.get("subscriptionid"))
    out.edge(subscription, AZNode.Subscription, objectid, AZNode.ResourceGroup, AZEdge.Contains, {})


def convert_key_vault(out: Emitter, data: dict[str, Any]) -> None:
    objectid = upper(data.get("id"))
    rbac = lower_keys(data.get("properties")).get("enablerbacauthorization")
    out.node(objectid, node_kinds(AZNode.KeyVault), {NAME: upper(data.get("name")), "enablerbacauthorization": rbac,
                                                     TENANT_ID: upper(data.get("tenantid"))})  # fmt: skip
    group = upper(data.get("resourcegroup"))
    out.edge(group, AZNode.ResourceGroup, objectid, AZNode.KeyVault, AZEdge.Contains, {})


def convert_key_vault_access_policy(out: Emitter, data: dict[str, Any]) -> None:
    vault, principal = upper(data.get("keyvaultid")), upper(data.get("objectid"))
    permissions = lower_keys(data.get("permissions"))
    for field, kind in (("certificates", AZEdge.GetCertificates), ("keys", AZEdge.GetKeys),
                        ("secrets", AZEdge.GetSecrets)):  # fmt: skip
        if KEY_VAULT_GET in as_list(permissions.get(field)):
            out.edge(principal, AZNode.Base, vault, AZNode.KeyVault, kind, {})


def resource(kind: str, *, identities: bool = True) -> Converter:
    """Compute resources: a node in its resource group, with its managed identities."""

    def convert(out: Emitter, data: dict[str, Any]) -> None:
        objectid = upper(data.get("id"))
        properties: dict[str, Any] = {NAME: upper(data.get("name")), TENANT_ID: upper(data.get("tenantid"))}
        if kind == AZNode.VM:
            os_disk = lower_keys(lower_keys(lower_keys(data.get("properties")).get("storageprofile")).get("osdisk"))
            properties["operatingsystem"] = os_disk.get("ostype")
        out.node(objectid, node_kinds(kind), properties)
        group = upper(data.get("resourcegroupid"))
        out.edge(group, AZNode.ResourceGroup, objectid, kind, AZEdge.Contains, {})
        if identities:
            emit_identities(out, data, objectid, kind)

    return convert


def convert_managed_cluster(out: Emitter, data: dict[str, Any]) -> None:
    resource(AZNode.ManagedCluster, identities=False)(out, data)
    objectid = upper(data.get("id"))
    node_group = lower_keys(data.get("properties")).get("noderesourcegroup")
    node_group_id = f"/subscriptions/{as_str(data.get('subscriptionid'))}/resourcegroups/{as_str(node_group)}".upper()
    out.nodes[-1].properties["noderesourcegroupid"] = node_group_id
    out.edge(objectid, AZNode.ManagedCluster, node_group_id, AZNode.ResourceGroup, AZEdge.NodeResourceGroup, {})


def role_holders(target_field: str, list_field: str, item_field: str, target_kind: str, edge_kind: str,
                 *, inherited: bool = False) -> Converter:  # fmt: skip
    """Converters for `{<target>Id, <list>: [{<item>: roleAssignment}]}` records (Owners, Contributors...).

    An assignment counts only at the target itself, or, when `inherited`, at its resource group.
    """

    def convert(out: Emitter, data: dict[str, Any]) -> None:
        target = as_str(data.get(target_field))
        for raw in as_list(data.get(list_field)):
            assignment = lower_keys(raw).get(item_field)
            scope = assignment_scope(assignment)
            if within_scope(target, scope) if inherited else target.lower() == scope.lower():
                out.edge(principal_id(assignment), AZNode.Base, target.upper(), target_kind, edge_kind, {})

    return convert


def typed_role_assignments(target_kind: str, extra_role: str | None) -> Converter:
    """Converters for `{objectId, roleAssignments: [{roleDefinitionId, objectId, assignee}]}` records: Owner,
    User Access Administrator, Contributor, and the resource's own contributor role, assigned on the resource."""
    roles = {OWNER_ROLE, USER_ACCESS_ADMIN_ROLE, CONTRIBUTOR_ROLE} | ({extra_role} if extra_role else set())

    def convert(out: Emitter, data: dict[str, Any]) -> None:
        target = upper(data.get("objectid"))
        for raw in as_list(data.get("roleassignments")):
            assignment = lower_keys(raw)
            role = last_segment(assignment.get("roledefinitionid"))
            assignee = assignment.get("assignee")
            if role in roles and assignment_scope(assignee).lower() == as_str(assignment.get("objectid")).lower():
                out.edge(principal_id(assignee), AZNode.Base, target, target_kind, KIND_BY_RBAC_ROLE[role], {})

    return convert
