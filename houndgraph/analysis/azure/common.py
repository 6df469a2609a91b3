"""Per-tenant Azure data the Entra role rules share: what a tenant contains and who holds which role.

A tenant *contains* the nodes its AZContains edges reach. A role (AZRole in the tenant, identified by
its `roletemplateid`, or `templateid` as AzureHound names it) is *held* by the Users, Groups and
Service Principals with AZHasRole to it, and by every transitive AZMemberOf member of a holding group
(reference `RoleMembers`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from houndgraph.analysis.context import Context
from houndgraph.analysis.membership import Membership
from houndgraph.graph.kinds import AZEdge, AZNode

_CACHE_KEY = "azure"

# Entra role template ids (Microsoft's, the same in every tenant).
GLOBAL_ADMINISTRATOR = "62E90394-69F5-4237-9190-012177145E10"
PRIVILEGED_ROLE_ADMINISTRATOR = "E8611AB8-C189-46E8-94E1-60213AB1F814"
PRIVILEGED_AUTHENTICATION_ADMINISTRATOR = "7BE44C8A-ADAF-4E2A-84D6-AB2649E08A13"
PARTNER_TIER1_SUPPORT = "4BA39CA4-527C-499A-B93D-D9B492C50246"
PARTNER_TIER2_SUPPORT = "E00E864A-17C5-4A4B-9C06-F5B95A8D5BD8"
HELPDESK_ADMINISTRATOR = "729827E3-9C14-49F7-BB1B-9608F156BBB8"
AUTHENTICATION_ADMINISTRATOR = "C4E39BD9-1100-46D3-8C65-FB160DA0071F"
USER_ADMINISTRATOR = "FE930BE7-5E62-47DB-91AF-98C3A49A38B1"
PASSWORD_ADMINISTRATOR = "966707D0-3269-4727-9BE2-8C3A10F19B9D"
APPLICATION_ADMINISTRATOR = "9B895D92-2CD3-44C7-9D02-A6AC2D5EA5C3"
CLOUD_APPLICATION_ADMINISTRATOR = "158C047A-C907-4556-B7EF-446551A6B5F7"
GROUPS_ADMINISTRATOR = "FDD7A751-B60B-444A-984C-02652FE8FA1C"
DIRECTORY_WRITERS = "9360FEB5-F418-4BAA-8175-E2A00BAC4301"
IDENTITY_GOVERNANCE_ADMINISTRATOR = "45D8D3C5-C802-45C6-B32A-1D70B5E1E86E"
INTUNE_ADMINISTRATOR = "3A2C62DB-5318-420D-8D74-23AFFEE5D9D5"
KNOWLEDGE_ADMINISTRATOR = "B5A8DCF3-09D5-43A9-A639-8E29EF291470"
KNOWLEDGE_MANAGER = "744EC460-397E-42AD-A462-8B3F9747A02C"
REPORTS_READER = "4A5D8F65-41DA-4DE4-8968-E035B65339CF"
MESSAGE_CENTER_READER = "790C1FB9-7F7D-4F88-86A1-EF1F95C05C1B"
GUEST_INVITER = "95E79109-95C0-4D8E-AEE3-D01ACCF2D47B"
DIRECTORY_READERS = "88D8E3E3-8F55-4A1E-953A-9B9898B8876B"
USAGE_SUMMARY_REPORTS_READER = "75934031-6C7E-415A-99D7-48DBD49E875E"
HYBRID_IDENTITY_ADMINISTRATOR = "8AC3FC64-6ECA-42EA-9E69-59F4C7B60EB2"
DIRECTORY_SYNCHRONIZATION_ACCOUNTS = "D29B2B05-8046-44BA-8758-1E26182FCF32"


@dataclass
class Tenant:
    id: int
    contains: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))  # kind -> nodes
    roles: dict[int, str] = field(default_factory=dict)  # role node -> template id
    holders: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))  # template -> principals
    roles_of: dict[int, set[str]] = field(default_factory=lambda: defaultdict(set))  # principal -> templates

    def of(self, kind: str) -> set[int]:
        return self.contains.get(kind, set())

    def role_nodes(self, *templates: str) -> list[int]:
        return sorted(node for node, template in self.roles.items() if template in templates)

    def principals_with(self, *templates: str) -> set[int]:
        return set().union(*(self.holders.get(template, set()) for template in templates))


@dataclass
class AzureData:
    tenants: list[Tenant]
    properties: dict[int, dict[str, Any]]
    membership: Membership  # AZMemberOf


def role_template(properties: dict[str, Any]) -> str:
    """The role's template id: `roletemplateid` as the reference stores it, or AzureHound's `templateid`."""
    return str(properties.get("roletemplateid") or properties.get("templateid") or "").upper()


def data(ctx: Context) -> AzureData:
    cached = ctx.cache.get(_CACHE_KEY)
    if cached is None:
        cached = ctx.cache[_CACHE_KEY] = _load(ctx)
    return cached


def _load(ctx: Context) -> AzureData:
    tenant_ids = ctx.node_ids(AZNode.Tenant)
    membership = Membership(ctx.edges(AZEdge.MemberOf))
    kinds_of: dict[int, set[str]] = defaultdict(set)
    contained = ctx.edges(AZEdge.Contains)
    tenant_set = set(tenant_ids)
    targets = {end for start, end in contained if start in tenant_set}
    for kind in (AZNode.User, AZNode.Group, AZNode.ServicePrincipal, AZNode.App, AZNode.Role, AZNode.Device):
        for node in set(ctx.node_ids(kind)) & targets:
            kinds_of[node].add(kind)
    properties = ctx.properties(targets)
    has_role: dict[int, set[int]] = defaultdict(set)
    for principal, role in ctx.edges(AZEdge.HasRole):
        has_role[role].add(principal)
    tenants: dict[int, Tenant] = {tenant: Tenant(tenant) for tenant in tenant_ids}
    for start, end in contained:
        tenant = tenants.get(start)
        if tenant is None:
            continue
        for end_kind in kinds_of.get(end, ()):
            tenant.contains[end_kind].add(end)
    for tenant in tenants.values():
        for role in tenant.of(AZNode.Role):
            template = role_template(properties.get(role, {}))
            if not template:
                continue
            tenant.roles[role] = template
            for holder in has_role.get(role, ()):
                for principal in {holder} | membership.members(holder):
                    tenant.holders[template].add(principal)
                    tenant.roles_of[principal].add(template)
    return AzureData(list(tenants.values()), properties, membership)
