"""AZRoleApprover: who approves the activation of a PIM-managed Entra role (reference
`CreateAZRoleApproverEdge`), in our words. For each AZRole of a tenant whose activation requires
approval (`isapprovalrequired`, or the policy's `enduserassignmentrequiresapproval`): the AZUser and
AZGroup nodes named as approvers (`primaryapprovers`, or the policy's user and group approver lists)
-> the role; when nobody is named, the tenant's Global Administrator and Privileged Role Administrator
role nodes -> the role.
"""

from __future__ import annotations

from typing import Any

from houndgraph.analysis.azure import common as azure_common
from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import AZEdge, AZNode

_APPROVER_LISTS = ("primaryapprovers", "enduserassignmentuserapprovers", "enduserassignmentgroupapprovers")


def _named(properties: dict[str, Any]) -> set[str]:
    named: set[str] = set()
    for key in _APPROVER_LISTS:
        value = properties.get(key)
        for item in value if isinstance(value, list) else []:
            named.add(str(item.get("id") if isinstance(item, dict) else item).upper())
    return named


def compute(ctx: Context) -> Derived:
    data = azure_common.data(ctx)
    pairs: set[tuple[int, int]] = set()
    approvers_by_id = {str(objectid).upper(): node for kind in (AZNode.User, AZNode.Group)
                       for node, objectid in ctx.nodes(kind, columns=("objectid",))}
    for tenant in data.tenants:
        defaults = tenant.role_nodes(azure_common.GLOBAL_ADMINISTRATOR, azure_common.PRIVILEGED_ROLE_ADMINISTRATOR)
        for role in tenant.of(AZNode.Role):
            properties = data.properties.get(role, {})
            if properties.get("isapprovalrequired") is not True \
                    and properties.get("enduserassignmentrequiresapproval") is not True:
                continue
            named = _named(properties)
            sources = {approvers_by_id[name] for name in named if name in approvers_by_id} if named else set(defaults)
            pairs.update((source, role) for source in sources)
    return {AZEdge.RoleApprover: pairs}


RULE = Rule("AzureRoleApprovers", (AZEdge.RoleApprover,), compute)
