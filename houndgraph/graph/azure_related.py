"""The related-entity sets behind the Azure entity panels, as SQL over the edge table (see `graph.related`).

Written after the reference's Azure traversals (`packages/go/analysis/azure/queries.go`, `filters.go`):
a "terminal" there is a node the walk reaches and cannot expand further; here that is a reached node
with no edge of the walk's kinds left to follow (`_leaves`).
"""

from __future__ import annotations

from collections.abc import Iterable

from houndgraph.graph.kinds import AZEdge, AZNode
from houndgraph.graph.related import Builder, KindIds, Relation, one_hop, through_groups, walk

M = AZEdge.MemberOf
# graphschema/azure: ControlRelationships(), ExecutionPrivileges(), AbusableAppRoleRelationshipKinds().
CONTROL = (
    AZEdge.AvereContributor, AZEdge.Contributor, AZEdge.Owner, AZEdge.VMContributor, AZEdge.AutomationContributor,
    AZEdge.KeyVaultContributor, AZEdge.AddMembers, AZEdge.AddSecret, AZEdge.ExecuteCommand, AZEdge.GlobalAdmin,
    AZEdge.Grant, AZEdge.GrantSelf, AZEdge.PrivilegedRoleAdmin, AZEdge.ResetPassword, AZEdge.UserAccessAdministrator,
    AZEdge.Owns, AZEdge.CloudAppAdmin, AZEdge.AppAdmin, AZEdge.AddOwner, AZEdge.ManagedIdentity,
    AZEdge.AKSContributor, AZEdge.WebsiteContributor, AZEdge.LogicAppContributor, AZEdge.MGAddMember,
    AZEdge.MGAddOwner, AZEdge.MGAddSecret, AZEdge.MGGrantAppRoles, AZEdge.MGGrantRole,
)  # fmt: skip
EXECUTION = (AZEdge.VMAdminLogin, AZEdge.VMContributor, AZEdge.AvereContributor, AZEdge.WebsiteContributor,
             AZEdge.Contributor, AZEdge.ExecuteCommand)
ABUSABLE_APP_ROLES = (
    AZEdge.ApplicationReadWriteAll, AZEdge.AppRoleAssignmentReadWriteAll, AZEdge.DirectoryReadWriteAll,
    AZEdge.GroupReadWriteAll, AZEdge.GroupMemberReadWriteAll, AZEdge.RoleManagementReadWriteDirectory,
    AZEdge.ServicePrincipalEndpointReadWriteAll,
)  # fmt: skip
KEY_READERS = (M, AZEdge.Contributor, AZEdge.Owner, AZEdge.GetKeys)
CERTIFICATE_READERS = (M, AZEdge.Contributor, AZEdge.Owner, AZEdge.GetCertificates)
SECRET_READERS = (M, AZEdge.Contributor, AZEdge.Owner, AZEdge.GetSecrets)
ACTIVE_ASSIGNMENTS = (AZEdge.HasRole, M)
PIM_ASSIGNMENTS = (AZEdge.Grant, AZEdge.GrantSelf, M)

# GetDescendentKinds: what the descendent counts of a tenant, management group, subscription and
# resource group break down into.
_RESOURCES = (AZNode.VM, AZNode.ManagedCluster, AZNode.VMScaleSet, AZNode.ContainerRegistry, AZNode.WebApp,
              AZNode.LogicApp, AZNode.AutomationAccount, AZNode.KeyVault, AZNode.FunctionApp)
DESCENDENT_KINDS: dict[str, tuple[str, ...]] = {
    AZNode.Tenant: (AZNode.User, AZNode.Group, AZNode.ManagementGroup, AZNode.Subscription, AZNode.ResourceGroup,
                    *_RESOURCES[:8], AZNode.App, AZNode.ServicePrincipal, AZNode.Device, AZNode.FunctionApp),
    AZNode.ManagementGroup: (AZNode.ManagementGroup, AZNode.Subscription, AZNode.ResourceGroup, *_RESOURCES),
    AZNode.Subscription: (AZNode.ResourceGroup, *_RESOURCES),
    AZNode.ResourceGroup: _RESOURCES,
}


def _leaves(direction: str, edges: Iterable[str]) -> Builder:
    """The terminals of a walk from the root over `edges`: reached nodes with no such edge to follow on."""
    near, far = ("start_id", "end_id") if direction == "out" else ("end_id", "start_id")
    edges = tuple(edges)

    def build(k: KindIds) -> str:
        return (f"SELECT w.id FROM ({walk(direction, edges)(k)}) AS w WHERE NOT EXISTS "
                f"(SELECT 1 FROM edge x WHERE x.{near} = w.id AND x.kind_id = ANY({k(edges)}))")
    return build


def _roles(k: KindIds) -> str:
    """Roles held directly, or through one role-assignable group the root (not itself a group) belongs to:
    the reference's role descent stops at a second group and at groups not assignable to roles."""
    return (
        f"SELECT DISTINCT e.end_id AS id FROM edge e JOIN node r ON r.id = e.end_id AND r.kind_ids && {k(AZNode.Role)} "
        f"WHERE e.kind_id = ANY({k(AZEdge.HasRole)}) AND (e.start_id = %(root)s OR e.start_id IN ("
        f"SELECT m.end_id FROM edge m JOIN node g ON g.id = m.end_id AND g.kind_ids && {k(AZNode.Group)} "
        f"JOIN node s ON s.id = m.start_id AND NOT s.kind_ids && {k(AZNode.Group)} "
        f"WHERE m.start_id = %(root)s AND m.kind_id = ANY({k(M)}) "
        f"AND lower(g.properties->>'isassignabletorole') = 'true'))")


def _outbound_control(k: KindIds) -> str:
    """What the root, or a group it belongs to, controls with one control edge, followed on down through
    what that contains (AZContains / AZMemberOf, never a second control edge) to its terminals, the last
    hop not a membership: owning a subscription counts its leaf resources, as the reference does."""
    on = k(AZEdge.Contains, M)
    return (
        f"WITH RECURSIVE g(id) AS (SELECT %(root)s::bigint UNION SELECT e.end_id FROM g JOIN edge e "
        f"ON e.start_id = g.id AND e.kind_id = ANY({k(M)})), "
        f"d(id, counted) AS (SELECT e.end_id, true FROM g JOIN edge e ON e.start_id = g.id "
        f"AND e.kind_id = ANY({k(CONTROL)}) UNION SELECT e.end_id, e.kind_id <> ALL({k(M)}) FROM d "
        f"JOIN edge e ON e.start_id = d.id AND e.kind_id = ANY({on})) "
        f"SELECT DISTINCT d.id FROM d WHERE d.counted AND d.id <> %(root)s "
        f"AND NOT EXISTS (SELECT 1 FROM edge x WHERE x.start_id = d.id AND x.kind_id = ANY({on}))")


def _union(*builders: Builder) -> Builder:
    def build(k: KindIds) -> str:
        return " UNION ".join(f"({b(k)})" for b in builders)
    return build


def descendents(kind: str) -> Relation:
    """Everything of `kind` the root contains, at any depth."""
    return Relation(walk("out", [AZEdge.Contains], node_kinds=[kind]), (AZEdge.Contains,))


def descendent_kind_counts(k: KindIds, kinds: Iterable[str]) -> str:
    """One row (kind name, count) per descendent kind present under the root; a node counts once per kind."""
    wanted = k(*kinds)
    return (f"SELECT kd.name, count(*) FROM ({walk('out', [AZEdge.Contains])(k)}) AS w JOIN node n ON n.id = w.id "
            f"CROSS JOIN LATERAL unnest(n.kind_ids) AS u(kind_id) JOIN kind kd ON kd.id = u.kind_id "
            f"WHERE u.kind_id = ANY({wanted}) GROUP BY kd.name")


ROLES = Relation(_roles, (AZEdge.HasRole, M))
GROUP_MEMBERSHIP = Relation(one_hop("out", [M]), (M,))
GROUP_MEMBERS = Relation(one_hop("in", [M], node_kinds=[AZNode.Base]), (M,))
INBOUND_CONTROL = Relation(through_groups("in", M, [*CONTROL, AZEdge.Contains]), (*CONTROL, AZEdge.Contains, M))
OUTBOUND_CONTROL = Relation(_outbound_control, (*CONTROL, AZEdge.Contains, M))
OUTBOUND_EXECUTION = Relation(through_groups("out", M, EXECUTION), (*EXECUTION, M))
INBOUND_EXECUTION = Relation(through_groups("in", M, EXECUTION, terminals_only=True), (*EXECUTION, M))
OUTBOUND_APP_ROLES = Relation(_leaves("out", ABUSABLE_APP_ROLES), ABUSABLE_APP_ROLES)
INBOUND_APP_ROLES = Relation(_leaves("in", ABUSABLE_APP_ROLES), ABUSABLE_APP_ROLES)
KEY_VAULT_KEY_READERS = Relation(_leaves("in", KEY_READERS), KEY_READERS)
KEY_VAULT_CERTIFICATE_READERS = Relation(_leaves("in", CERTIFICATE_READERS), CERTIFICATE_READERS)
KEY_VAULT_SECRET_READERS = Relation(_leaves("in", SECRET_READERS), SECRET_READERS)
KEY_VAULT_ALL_READERS = Relation(
    _union(_leaves("in", KEY_READERS), _leaves("in", CERTIFICATE_READERS), _leaves("in", SECRET_READERS)),
    tuple(sorted({*KEY_READERS, *CERTIFICATE_READERS, *SECRET_READERS})))
ACTIVE_ASSIGNMENT_HOLDERS = Relation(_leaves("in", ACTIVE_ASSIGNMENTS), ACTIVE_ASSIGNMENTS)
PIM_ASSIGNMENT_HOLDERS = Relation(_leaves("in", PIM_ASSIGNMENTS), PIM_ASSIGNMENTS)
# Approvers name a role directly (post-processing draws AZRoleApprover from the approver to the role).
ROLE_APPROVERS = Relation(one_hop("in", [AZEdge.RoleApprover]), (AZEdge.RoleApprover,))
