"""AzureHound Entra ID (directory) records: tenants, users, groups, apps, service principals, devices,
roles, and the memberships, ownerships and role assignments between them."""

from __future__ import annotations

from typing import Any

from houndgraph.graph.kinds import ADNode, AZEdge, AZNode
from houndgraph.ingest.ad_common import as_list, as_str, lower_keys
from houndgraph.ingest.azure_common import (
    ADD_SECRET_KIND_BY_ROLE,
    DISPLAY_NAME,
    KIND_BY_GRAPH_APP_ROLE,
    MS_GRAPH_APP_ID,
    NAME,
    PRIVILEGED_ROLE_ADMIN_ROLE,
    TENANT_ID,
    at_tenant,
    directory_object,
    node_kinds,
    role_object_id,
    upper,
)
from houndgraph.ingest.emitter import Emitter

ON_PREM_ID = "onpremid"
SERVICE_PRINCIPAL = "ServicePrincipal"


def _contained(out: Emitter, tenant: Any, objectid: str, kind: str) -> None:
    out.edge(upper(tenant), AZNode.Tenant, objectid, kind, AZEdge.Contains, {})


def convert_tenant(out: Emitter, data: dict[str, Any]) -> None:
    tenant = upper(data.get("tenantid"))
    properties: dict[str, Any] = {DISPLAY_NAME: data.get("displayname"), NAME: upper(data.get("displayname")),
                                  TENANT_ID: tenant}  # fmt: skip
    if data.get("collected") is True:
        properties["collected"] = True
    out.node(tenant, node_kinds(AZNode.Tenant), properties)


def convert_user(out: Emitter, data: dict[str, Any]) -> None:
    objectid = upper(data.get("id"))
    out.node(objectid, node_kinds(AZNode.User), {
        NAME: upper(data.get("userprincipalname")),
        "enabled": data.get("accountenabled"),
        "whencreated": data.get("createddatetime"),
        DISPLAY_NAME: data.get("displayname"),
        "title": data.get("jobtitle"),
        "pwdlastset": data.get("lastpasswordchangedatetime"),
        "email": data.get("mail"),
        ON_PREM_ID: data.get("onpremisessecurityidentifier"),
        "onpremsyncenabled": data.get("onpremisessyncenabled"),
        "userprincipalname": data.get("userprincipalname"),
        "usertype": data.get("usertype"),
        TENANT_ID: upper(data.get("tenantid")),
    })  # fmt: skip
    _on_prem_node(out, data, ADNode.User)
    _contained(out, data.get("tenantid"), objectid, AZNode.User)


def convert_group(out: Emitter, data: dict[str, Any]) -> None:
    objectid = upper(data.get("id"))
    out.node(objectid, node_kinds(AZNode.Group), {
        NAME: at_tenant(data.get("displayname"), data.get("tenantname")),
        "whencreated": data.get("createddatetime"),
        "description": data.get("description"),
        DISPLAY_NAME: data.get("displayname"),
        "isassignabletorole": data.get("isassignabletorole"),
        ON_PREM_ID: data.get("onpremisessecurityidentifier"),
        "onpremsyncenabled": data.get("onpremisessyncenabled"),
        "securityenabled": data.get("securityenabled"),
        "securityidentifier": data.get("securityidentifier"),
        TENANT_ID: upper(data.get("tenantid")),
    })  # fmt: skip
    _on_prem_node(out, data, ADNode.Group)
    _contained(out, data.get("tenantid"), objectid, AZNode.Group)


def _on_prem_node(out: Emitter, data: dict[str, Any], kind: str) -> None:
    """A synced account's AD counterpart, so hybrid analysis can link the two."""
    sid = upper(data.get("onpremisessecurityidentifier"))
    if sid:
        out.node(sid, (kind, ADNode.Base), {})


def convert_app(out: Emitter, data: dict[str, Any]) -> None:
    objectid = upper(data.get("appid"))
    out.node(objectid, node_kinds(AZNode.App), {
        NAME: at_tenant(data.get("displayname"), data.get("publisherdomain")),
        "description": data.get("description"),
        DISPLAY_NAME: data.get("displayname"),
        "whencreated": data.get("createddatetime"),
        "appid": data.get("appid"),
        "publisherdomain": data.get("publisherdomain"),
        "signinaudience": data.get("signinaudience"),
        TENANT_ID: upper(data.get("tenantid")),
    })  # fmt: skip
    _contained(out, data.get("tenantid"), objectid, AZNode.App)


def convert_service_principal(out: Emitter, data: dict[str, Any]) -> None:
    objectid = upper(data.get("id"))
    out.node(objectid, node_kinds(AZNode.ServicePrincipal), {
        NAME: at_tenant(data.get("displayname"), data.get("tenantname")),
        "enabled": data.get("accountenabled"),
        DISPLAY_NAME: data.get("displayname"),
        "description": data.get("description"),
        "appownerorganizationid": data.get("appownerorganizationid"),
        "appdescription": data.get("appdescription"),
        "appdisplayname": data.get("appdisplayname"),
        "serviceprincipaltype": data.get("serviceprincipaltype"),
        TENANT_ID: upper(data.get("tenantid")),
    })  # fmt: skip
    app = upper(data.get("appid"))
    if app:
        out.node(app, node_kinds(AZNode.App), {DISPLAY_NAME: data.get("appdisplayname"),
                                               TENANT_ID: upper(data.get("appownerorganizationid"))})  # fmt: skip
        out.edge(app, AZNode.App, objectid, AZNode.ServicePrincipal, AZEdge.RunsAs, {})
    _contained(out, data.get("tenantid"), objectid, AZNode.ServicePrincipal)


def convert_device(out: Emitter, data: dict[str, Any]) -> None:
    objectid = upper(data.get("id"))
    out.node(objectid, node_kinds(AZNode.Device), {
        NAME: at_tenant(data.get("displayname"), data.get("tenantname")),
        DISPLAY_NAME: data.get("displayname"),
        "operatingsystem": data.get("operatingsystem"),
        "operatingsystemversion": data.get("operatingsystemversion"),
        "deviceid": data.get("deviceid"),
        "trustype": data.get("trusttype"),  # sic: the reference's property name
        TENANT_ID: upper(data.get("tenantid")),
    })  # fmt: skip
    _contained(out, data.get("tenantid"), objectid, AZNode.Device)


def convert_role(out: Emitter, data: dict[str, Any]) -> None:
    objectid = role_object_id(data.get("id"), data.get("tenantid"))
    out.node(objectid, node_kinds(AZNode.Role), {
        NAME: at_tenant(data.get("displayname"), data.get("tenantname")),
        "description": data.get("description"),
        DISPLAY_NAME: data.get("displayname"),
        "enabled": data.get("isenabled"),
        "isbuiltin": data.get("isbuiltin"),
        "templateid": data.get("templateid"),
        TENANT_ID: upper(data.get("tenantid")),
    })  # fmt: skip
    _contained(out, data.get("tenantid"), objectid, AZNode.Role)


def _owned_by(field: str, target_kind: str) -> Any:
    """Converters for `{<field>: id, owners: [{owner: directoryObject}]}` records."""

    def convert(out: Emitter, data: dict[str, Any]) -> None:
        target = upper(data.get(field))
        for raw in as_list(data.get("owners")):
            owner, owner_kind = directory_object(lower_keys(raw).get("owner"))
            if owner_kind is None:
                out.warnings.add(f"{target_kind} owner {owner} has an unknown directory object type: skipped")
                continue
            out.edge(owner, owner_kind, target, target_kind, AZEdge.Owns, {})

    return convert


convert_app_owner = _owned_by("appid", AZNode.App)
convert_device_owner = _owned_by("deviceid", AZNode.Device)
convert_group_owner = _owned_by("groupid", AZNode.Group)
convert_service_principal_owner = _owned_by("serviceprincipalid", AZNode.ServicePrincipal)


def convert_group_member(out: Emitter, data: dict[str, Any]) -> None:
    group = upper(data.get("groupid"))
    for raw in as_list(data.get("members")):
        member, member_kind = directory_object(lower_keys(raw).get("member"))
        if member_kind is None:
            out.warnings.add(f"group member {member} has an unknown directory object type: skipped")
            continue
        out.edge(member, member_kind, group, AZNode.Group, AZEdge.MemberOf, {})


def convert_role_assignment(out: Emitter, data: dict[str, Any]) -> None:
    tenant = upper(data.get("tenantid"))
    for raw in as_list(data.get("roleassignments")):
        assignment = lower_keys(raw)
        role_id = as_str(assignment.get("roledefinitionid"))
        role = role_object_id(role_id, tenant)
        principal = upper(assignment.get("principalid"))
        directory_scope = as_str(assignment.get("directoryscopeid")) or "/"
        scope = tenant if directory_scope == "/" else directory_scope[1:].upper()
        out.edge(principal, AZNode.Base, role, AZNode.Role, AZEdge.HasRole, {"scope": scope})
        # App admins scoped to one app or service principal can add secrets to that object only.
        add_secret = ADD_SECRET_KIND_BY_ROLE.get(role_id.lower())
        if add_secret is not None and directory_scope != "/":
            out.edge(principal, AZNode.Base, scope, AZNode.Base, add_secret, {})


def convert_app_role_assignment(out: Emitter, data: dict[str, Any]) -> None:
    """Microsoft Graph app roles held by service principals; other app role assignments are not graphed."""
    if as_str(data.get("appid")).lower() != MS_GRAPH_APP_ID or data.get("principaltype") != SERVICE_PRINCIPAL:
        return
    tenant = upper(data.get("tenantid"))
    principal, resource = upper(data.get("principalid")), upper(data.get("resourceid"))
    out.node(principal, node_kinds(AZNode.ServicePrincipal),
             {DISPLAY_NAME: upper(data.get("principaldisplayname")), TENANT_ID: tenant})  # fmt: skip
    out.node(resource, node_kinds(AZNode.ServicePrincipal),
             {DISPLAY_NAME: upper(data.get("resourcedisplayname")), TENANT_ID: tenant})  # fmt: skip
    kind = KIND_BY_GRAPH_APP_ROLE.get(as_str(data.get("approleid")).lower())
    if kind is not None:
        out.edge(principal, AZNode.ServicePrincipal, resource, AZNode.ServicePrincipal, kind, {})


def convert_role_eligibility(out: Emitter, data: dict[str, Any]) -> None:
    """A PIM eligible assignment: the principal can activate the role."""
    role = role_object_id(data.get("roledefinitionid"), data.get("tenantid"))
    out.edge(upper(data.get("principalid")), AZNode.Base, role, AZNode.Role, AZEdge.RoleEligible, {})


_POLICY_PROPERTIES = ("endUserAssignmentRequiresApproval", "endUserAssignmentRequiresCAPAuthenticationContext",
                      "endUserAssignmentRequiresMFA", "endUserAssignmentRequiresJustification",
                      "endUserAssignmentRequiresTicketInformation")  # fmt: skip


def convert_role_policy(out: Emitter, data: dict[str, Any]) -> None:
    """A PIM policy on a role: approval settings as role properties, and who approves activations."""
    role = role_object_id(data.get("roledefinitionid"), data.get("tenantid"))
    users = [upper(user) for user in as_list(data.get("enduserassignmentuserapprovers"))]
    groups = [upper(group) for group in as_list(data.get("enduserassignmentgroupapprovers"))]
    properties: dict[str, Any] = {name.lower(): data.get(name.lower()) for name in _POLICY_PROPERTIES}
    properties.update({"roledefinitionid": upper(data.get("roledefinitionid")), TENANT_ID: upper(data.get("tenantid")),
                       "enduserassignmentuserapprovers": users, "enduserassignmentgroupapprovers": groups})  # fmt: skip
    out.node(role, node_kinds(AZNode.Role), properties)
    if data.get("enduserassignmentrequiresapproval") is not True:
        return
    for user in users:
        out.edge(user, AZNode.User, role, AZNode.Role, AZEdge.RoleApprover, {})
    for group in groups:
        out.edge(group, AZNode.Group, role, AZNode.Role, AZEdge.RoleApprover, {})
    if not users and not groups:
        # Without named approvers, Privileged Role Administrators approve.
        approver = role_object_id(PRIVILEGED_ROLE_ADMIN_ROLE, data.get("tenantid"))
        out.edge(approver, AZNode.Role, role, AZNode.Role, AZEdge.RoleApprover, {})
