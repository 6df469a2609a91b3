"""ADCSESC13: a template extended by an issuance policy linked to a group grants that group's rights.

For each hosted Enterprise CA and each published template that needs no manager approval, enables
authentication and is schema 1 or requires no authorized signature: the groups reached by
ExtendedByPolicy -> IssuancePolicy -OIDGroupLink-> Group; the principals enrolling on both template
and CA (cross product), without users when the template requires a DNS name -> each such group.
"""

from __future__ import annotations

from collections import defaultdict

from houndgraph.analysis.adcs import common as adcs
from houndgraph.analysis.adcs.common import flag
from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import ADEdge


def compute(ctx: Context) -> Derived:
    data = adcs.data(ctx)
    policies: dict[int, set[int]] = defaultdict(set)
    for template, policy in ctx.edges(ADEdge.ExtendedByPolicy):
        policies[template].add(policy)
    linked: dict[int, set[int]] = defaultdict(set)
    for policy, group in ctx.edges(ADEdge.OIDGroupLink):
        if group in data.groups:
            linked[policy].add(group)
    pairs: set[tuple[int, int]] = set()
    for ca in data.chained:
        for template in data.published.get(ca, []):
            properties = data.properties[template]
            if flag(properties, "requiresmanagerapproval") or not flag(properties, "authenticationenabled") \
                    or not adcs.template_signature_ok(properties):
                continue
            groups = set().union(*(linked[policy] for policy in policies[template])) if policies[template] else set()
            if not groups:
                continue
            principals = ctx.membership.cross_product(data.template_enrollers[template], data.ca_enrollers[ca])
            principals = adcs.filter_user_victims(data, principals, properties)
            pairs.update((principal, group) for principal in principals for group in groups)
    return {ADEdge.ADCSESC13: pairs}


RULE = Rule("ADCSESC13", (ADEdge.ADCSESC13,), compute)
