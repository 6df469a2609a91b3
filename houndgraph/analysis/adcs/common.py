"""What the certificate-services rules share, read once per run after the PKI plumbing is written.

Reference `ADCSCache`, in our words:
* An Enterprise CA *chains* to a domain when both hold: a path of IssuedSignedBy / EnterpriseCAFor /
  RootCAFor edges leads from the CA to the domain (through its root CA), and the CA is
  TrustedForNTAuth by an NTAuthStore that is NTAuthStoreFor the domain.
* It is *hosted* when at least one Computer with `enabled = true` has HostsCAService to it.
* The ESC rules consider only hosted CAs, and emit towards the domains they chain to.
* Template enrollers: first-degree holders of Enroll, GenericAll or AllExtendedRights on the template.
  Template controllers: Owns, GenericAll, WriteDacl, WriteOwner. CA enrollers: Enroll on the CA.
* A forest (the domain and the domains linked to it by SameForestTrust, either way, transitively) has
  *weak certificate binding* when one of its DCs (Computer -DCFor-> a forest domain) has
  `strongcertificatebindingenforcementraw` 0 or 1 (or -1: value absent, compatibility by default), and
  *UPN certificate mapping* when one DC's `certificatemappingmethodsraw` (not -1) has bit 0x4.

Template and CA properties are read leniently: an absent flag is false and an absent number is 0 (the
reference skips an object with any absent property; collectors omit a flag only when it is unset).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from houndgraph.analysis.context import Context
from houndgraph.graph.kinds import ADEdge, ADNode

CERTIFICATE_MAPPING_UPN = 0x4
REGISTRY_VALUE_ABSENT = -1
_WEAK_BINDING = {0, 1, REGISTRY_VALUE_ABSENT}
_CACHE_KEY = "adcs"


def flag(properties: dict[str, Any], key: str) -> bool:
    return properties.get(key) is True


def number(properties: dict[str, Any], key: str) -> float:
    value = properties.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def strings(properties: dict[str, Any], key: str) -> list[str] | None:
    value = properties.get(key)
    return [str(item) for item in value] if isinstance(value, list) else None


def template_signature_ok(template: dict[str, Any]) -> bool:
    """Schema version 1, or no authorized signatures required."""
    return not (number(template, "schemaversion") > 1 and number(template, "authorizedsignatures") > 0)


def template_valid_for_user_victim(template: dict[str, Any]) -> bool:
    """A user has no DNS name: a template requiring one cannot be enrolled for a user."""
    return not flag(template, "subjectaltrequiredns") and not flag(template, "subjectaltrequiredomaindns")


@dataclass
class ADCSData:
    properties: dict[int, dict[str, Any]] = field(default_factory=dict)
    chained: dict[int, set[int]] = field(default_factory=dict)  # hosted enterprise CA -> domains
    published: dict[int, list[int]] = field(default_factory=dict)  # enterprise CA -> templates
    template_enrollers: dict[int, set[int]] = field(default_factory=dict)
    template_controllers: dict[int, set[int]] = field(default_factory=dict)
    ca_enrollers: dict[int, set[int]] = field(default_factory=dict)
    hosts: dict[int, set[int]] = field(default_factory=dict)  # enterprise CA -> hosting computers
    weak_binding: set[int] = field(default_factory=set)  # domains
    upn_mapping: set[int] = field(default_factory=set)  # domains
    users: set[int] = field(default_factory=set)
    computers: set[int] = field(default_factory=set)
    groups: set[int] = field(default_factory=set)


def data(ctx: Context) -> ADCSData:
    cached = ctx.cache.get(_CACHE_KEY)
    if cached is None:
        cached = ctx.cache[_CACHE_KEY] = _load(ctx)
    return cached


def _load(ctx: Context) -> ADCSData:
    adcs = ADCSData()
    cas = ctx.node_ids(ADNode.EnterpriseCA)
    templates = ctx.node_ids(ADNode.CertTemplate)
    if not cas and not templates:
        # No certificate services: every ADCS rule and finding starts from a CA or a template, and reading every
        # user, computer and group for nothing took 1-2 s at a million objects.
        return adcs
    adcs.properties = ctx.properties(cas + templates)
    adcs.template_enrollers = ctx.sources(templates, ADEdge.Enroll, ADEdge.GenericAll, ADEdge.AllExtendedRights)
    adcs.template_controllers = ctx.sources(
        templates, ADEdge.Owns, ADEdge.GenericAll, ADEdge.WriteDacl, ADEdge.WriteOwner
    )
    adcs.ca_enrollers = ctx.sources(cas, ADEdge.Enroll)
    template_set = set(templates)
    for ca, publishers in ctx.sources(cas, ADEdge.PublishedTo).items():
        adcs.published[ca] = sorted(publishers & template_set)
    computers = set(ctx.node_ids(ADNode.Computer))
    adcs.computers = computers
    adcs.users = set(ctx.node_ids(ADNode.User))
    adcs.groups = set(ctx.node_ids(ADNode.Group))
    hosts = {ca: found & computers for ca, found in ctx.sources(cas, ADEdge.HostsCAService).items()}
    adcs.hosts = hosts
    enabled = {row[0] for row in ctx.conn.execute(
        "SELECT id FROM node WHERE id = ANY(%s) AND properties->'enabled' = 'true'::jsonb",
        (sorted(set().union(*hosts.values())),),
    )} if hosts else set()
    hosted = {ca for ca, found in hosts.items() if found & enabled}
    for ca, domains in _chained_domains(ctx, cas).items():
        if ca in hosted and domains:
            adcs.chained[ca] = domains
    _forest_flags(ctx, adcs)
    return adcs


def _chained_domains(ctx: Context, cas: list[int]) -> dict[int, set[int]]:
    domains = set(ctx.node_ids(ADNode.Domain))
    # Root chain: walk IssuedSignedBy / EnterpriseCAFor / RootCAFor outward from each CA.
    chain: dict[int, set[int]] = defaultdict(set)
    for start, end in ctx.edges(ADEdge.IssuedSignedBy, ADEdge.EnterpriseCAFor, ADEdge.RootCAFor):
        chain[start].add(end)
    ntauth_for: dict[int, set[int]] = defaultdict(set)
    for store, domain in ctx.edges(ADEdge.NTAuthStoreFor):
        ntauth_for[store].add(domain)
    trusted: dict[int, set[int]] = defaultdict(set)
    for ca, store in ctx.edges(ADEdge.TrustedForNTAuth):
        trusted[ca] |= ntauth_for[store]
    result: dict[int, set[int]] = {}
    for ca in cas:
        seen, frontier = {ca}, [ca]
        while frontier:
            node = frontier.pop()
            for following in chain[node]:
                if following not in seen:
                    seen.add(following)
                    frontier.append(following)
        result[ca] = seen & domains & trusted[ca]
    return result


def _forest_flags(ctx: Context, adcs: ADCSData) -> None:
    domains = ctx.node_ids(ADNode.Domain)
    neighbours: dict[int, set[int]] = defaultdict(set)
    for start, end in ctx.edges(ADEdge.SameForestTrust):
        neighbours[start].add(end)
        neighbours[end].add(start)
    dcs: dict[int, set[int]] = defaultdict(set)
    for dc, domain in ctx.edges(ADEdge.DCFor):
        dcs[domain].add(dc)
    dc_properties = ctx.properties(set().union(*dcs.values())) if dcs else {}
    for domain in domains:
        forest, frontier = {domain}, [domain]
        while frontier:
            for following in neighbours[frontier.pop()] - forest:
                forest.add(following)
                frontier.append(following)
        for dc in set().union(*(dcs[member] for member in forest)):
            properties = dc_properties.get(dc, {})
            binding = properties.get("strongcertificatebindingenforcementraw")
            if isinstance(binding, int) and binding in _WEAK_BINDING:
                adcs.weak_binding.add(domain)
            mapping = properties.get("certificatemappingmethodsraw")
            if isinstance(mapping, int) and mapping != REGISTRY_VALUE_ABSENT and mapping & CERTIFICATE_MAPPING_UPN:
                adcs.upn_mapping.add(domain)


def filter_user_victims(adcs: ADCSData, principals: set[int], template: dict[str, Any]) -> set[int]:
    """Users cannot be the subject of a template that requires a DNS name."""
    if template_valid_for_user_victim(template):
        return principals
    return principals - adcs.users


def leaf_principals(ctx: Context, adcs: ADCSData, holders: set[int]) -> set[int]:
    """Holders expanded to the principals that are not groups (reference: no shortcut at Everyone)."""
    membership = ctx.membership
    result: set[int] = set()
    for holder in holders:
        if holder in adcs.groups:
            result |= {member for member in membership.members(holder) if not membership.direct_members(member)
                       and member not in adcs.groups}
        else:
            result.add(holder)
    return result
