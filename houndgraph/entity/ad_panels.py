"""Which AD entity panels exist, their count keys and the list route behind each count.

Count keys and list routes follow the reference (`cmd/api/src/api/v2/ad_entity.go`,
`registration/v2.go`); a count the reference has without a list route gets one here, named after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from houndgraph.graph import related as r
from houndgraph.graph.kinds import ADEdge, ADNode
from houndgraph.graph.related import Relation


@dataclass(frozen=True)
class Count:
    key: str  # the count's key in the entity panel
    list_slug: str | None  # the related list route, /api/v2/<entity>/{object_id}/<slug>
    relation: Relation


@dataclass(frozen=True)
class Entity:
    slug: str  # /api/v2/<slug>/{object_id}
    kind: str
    counts: tuple[Count, ...]
    # Relation lists without a count of their own in the reference panel.
    extra_lists: dict[str, Relation] = field(default_factory=dict)

    def relation(self, list_slug: str) -> Relation | None:
        for count in self.counts:
            if count.list_slug == list_slug:
                return count.relation
        return self.extra_lists.get(list_slug)

    @property
    def list_slugs(self) -> list[str]:
        return [c.list_slug for c in self.counts if c.list_slug] + list(self.extra_lists)


CONTROLLERS = Count("controllers", "controllers", r.CONTROLLERS)
CONTROLLABLES = Count("controllables", "controllables", r.CONTROLLABLES)
GPOS = Count("gpos", "gpos", r.APPLIED_GPOS)
PKI = Count("pki-hierarchy", "pki-hierarchy", r.PKI_HIERARCHY)


def _outbound_rights(with_sql: bool) -> tuple[Count, ...]:
    rights = (
        Count("adminRights", "admin-rights", r.rights(ADEdge.AdminTo)),
        Count("rdpRights", "rdp-rights", r.rights(ADEdge.CanRDP)),
        Count("backupRights", "backup-rights", r.rights(ADEdge.CanBackup)),
        Count("dcomRights", "dcom-rights", r.rights(ADEdge.ExecuteDCOM)),
        Count("psRemoteRights", "ps-remote-rights", r.rights(ADEdge.CanPSRemote)),
    )
    return rights + ((Count("sqlAdmin", "sql-admin-rights", Relation(r.one_hop("out", [ADEdge.SQLAdmin]),
                                                                      (ADEdge.SQLAdmin,))),) if with_sql else ())


def _contained(kind: str) -> Relation:
    return Relation(r.walk("out", [ADEdge.Contains], node_kinds=[kind]), (ADEdge.Contains,))


def _one_hop(direction: str, edge: str, *node_kinds: str) -> Relation:
    return Relation(r.one_hop(direction, [edge], node_kinds=node_kinds), (edge,))


def _in_domain(kind: str) -> Relation:
    return Relation(r.in_domain(kind), ())


DELEGATE_OUT = _one_hop("out", ADEdge.AllowedToDelegate)

ENTITIES: dict[str, Entity] = {e.slug: e for e in (
    Entity("users", ADNode.User, (
        Count("sessions", "sessions", r.USER_SESSIONS),
        Count("groupMembership", "memberships", r.MEMBERSHIP),
        *_outbound_rights(with_sql=True),
        Count("constrainedDelegation", "constrained-delegation-rights", DELEGATE_OUT),
        CONTROLLABLES, CONTROLLERS, GPOS)),
    Entity("groups", ADNode.Group, (
        Count("sessions", "sessions", r.GROUP_SESSIONS),
        Count("members", "members", r.MEMBERS),
        Count("membership", "memberships", r.MEMBERSHIP),
        *_outbound_rights(with_sql=False),
        CONTROLLABLES, CONTROLLERS)),
    Entity("computers", ADNode.Computer, (
        Count("sessions", "sessions", r.COMPUTER_SESSIONS),
        Count("adminUsers", "admin-users", r.holders(ADEdge.AdminTo)),
        Count("rdpUsers", "rdp-users", r.holders(ADEdge.CanRDP)),
        Count("dcomUsers", "dcom-users", r.holders(ADEdge.ExecuteDCOM)),
        Count("psRemoteUsers", "ps-remote-users", r.holders(ADEdge.CanPSRemote)),
        Count("backupOperators", "backup-operators", r.holders(ADEdge.CanBackup)),
        Count("sqlAdminUsers", "sql-admins", _one_hop("in", ADEdge.SQLAdmin)),
        Count("constrainedUsers", "constrained-users", _one_hop("in", ADEdge.AllowedToDelegate)),
        Count("groupMembership", "group-membership", r.MEMBERSHIP),
        *_outbound_rights(with_sql=False),
        Count("constrainedPrivs", "constrained-delegation-rights", DELEGATE_OUT),
        CONTROLLABLES, CONTROLLERS, GPOS)),
    Entity("containers", ADNode.Container, (CONTROLLERS,)),
    # Any AD node: what it controls and what controls it (`/api/v2/base/{object_id}`).
    Entity("base", ADNode.Base, (CONTROLLABLES, CONTROLLERS)),
    Entity("domains", ADNode.Domain, (
        Count("users", "users", _in_domain(ADNode.User)),
        Count("groups", "groups", _in_domain(ADNode.Group)),
        Count("computers", "computers", _in_domain(ADNode.Computer)),
        Count("ous", "ous", _in_domain(ADNode.OU)),
        Count("gpos", "gpos", _in_domain(ADNode.GPO)),
        Count("foreignUsers", "foreign-users", Relation(r.foreign_members(ADNode.User), (ADEdge.MemberOf,))),
        Count("foreignGroups", "foreign-groups", Relation(r.foreign_members(ADNode.Group), (ADEdge.MemberOf,))),
        Count("foreignGPOControllers", "foreign-gpo-controllers",
              Relation(r.foreign_holders(r.ACL, ADNode.GPO), (*r.ACL, ADEdge.MemberOf))),
        Count("foreignAdmins", "foreign-admins",
              Relation(r.foreign_holders([ADEdge.AdminTo], ADNode.Computer), (ADEdge.AdminTo, ADEdge.MemberOf))),
        Count("inboundTrusts", "inbound-trusts", Relation(r.walk("in", r.TRUSTS, node_kinds=[ADNode.Domain]),
                                                          r.TRUSTS)),
        Count("outboundTrusts", "outbound-trusts", Relation(r.walk("out", r.TRUSTS, node_kinds=[ADNode.Domain]),
                                                            r.TRUSTS)),
        CONTROLLERS,
        Count("linkedgpos", "linked-gpos", r.APPLIED_GPOS),
        Count("dcsyncers", "dc-syncers", _one_hop("in", ADEdge.DCSync)),
        Count("adcs-escalations", "adcs-escalations", Relation(r.walk("in", r.ESCALATIONS), r.ESCALATIONS)))),
    Entity("gpos", ADNode.GPO, (
        Count("ous", "ous", Relation(r.gpo_affected(ADNode.OU, ADNode.Container), (ADEdge.GPLink, ADEdge.Contains))),
        Count("computers", "computers", Relation(r.gpo_affected(ADNode.Computer), (ADEdge.GPLink, ADEdge.Contains))),
        Count("users", "users", Relation(r.gpo_affected(ADNode.User), (ADEdge.GPLink, ADEdge.Contains))),
        Count("sites", "sites", _one_hop("out", ADEdge.GPLink, ADNode.Site)),
        CONTROLLERS,
        Count("tierzero", "tier-zero", Relation(r.gpo_affected(*r.PRINCIPALS, tier_zero=True),
                                                (ADEdge.GPLink, ADEdge.Contains))))),
    Entity("ous", ADNode.OU, (
        Count("gpos", "gpos", r.APPLIED_GPOS),
        Count("users", "users", _contained(ADNode.User)),
        Count("groups", "groups", _contained(ADNode.Group)),
        Count("computers", "computers", _contained(ADNode.Computer)))),
    Entity("aiacas", ADNode.AIACA, (CONTROLLERS, PKI)),
    Entity("rootcas", ADNode.RootCA, (CONTROLLERS, Count("pki-hierarchy", "pki-hierarchy", r.ROOT_CA_PKI_HIERARCHY))),
    Entity("enterprisecas", ADNode.EnterpriseCA, (
        CONTROLLERS, PKI, Count("published-templates", "published-templates", _one_hop("in", ADEdge.PublishedTo)))),
    Entity("ntauthstores", ADNode.NTAuthStore, (
        CONTROLLERS, Count("trusted-cas", "trusted-cas", _one_hop("in", ADEdge.TrustedForNTAuth)))),
    Entity("certtemplates", ADNode.CertTemplate, (
        CONTROLLERS, Count("published-to-cas", "published-to-cas", _one_hop("out", ADEdge.PublishedTo)))),
    Entity("issuancepolicies", ADNode.IssuancePolicy, (
        CONTROLLERS,
        Count("linkedTemplates", "linkedtemplates", _one_hop("in", ADEdge.ExtendedByPolicy, ADNode.CertTemplate)))),
    # A site lists the GPOs linked to it, enforced or not (a site is no OU: nothing blocks inheritance there),
    # and the server and subnet objects it contains. Those two have no counts of their own.
    Entity("sites", ADNode.Site, (
        CONTROLLERS,
        Count("linkedgpos", "linked-gpos", _one_hop("in", ADEdge.GPLink, ADNode.GPO)),
        Count("siteServers", "siteservers", _contained(ADNode.SiteServer)),
        Count("siteSubnets", "sitesubnets", _contained(ADNode.SiteSubnet)))),
    Entity("siteservers", ADNode.SiteServer, ()),
    Entity("sitesubnets", ADNode.SiteSubnet, ()),
)}

# The OU panel has no controllers count in the reference, but the list is as useful there as anywhere.
ENTITIES["ous"].extra_lists["controllers"] = r.CONTROLLERS
