"""ADCSESC3: an enrollment agent certificate lets its holder request certificates on behalf of anyone.

For each hosted Enterprise CA (CA2) and each template T2 published to it that enables authentication
and needs no manager approval, and each agent template T1 with EnrollOnBehalfOf -> T2 that needs no
manager approval and is schema 1 or requires no authorized signature, and each hosted CA (CA1) that
T1 is published to: the principals holding enrollment on T1, on T2, on CA1 and on CA2 (cross product
of the four sets; when CA2 enforces enrollment agent restrictions, `enrollmentagentrestrictionscollected`
and `hasenrollmentagentrestrictions`, also DelegatedEnrollmentAgent on T2, and nobody when T2 has no
delegated agent), without users when T1 requires a DNS name -> each domain both CAs chain to.
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
    agents_for: dict[int, set[int]] = defaultdict(set)
    templates = set(data.template_enrollers)
    for agent, target in ctx.edges(ADEdge.EnrollOnBehalfOf):
        if agent in templates:
            agents_for[target].add(agent)
    publishers: dict[int, set[int]] = defaultdict(set)
    for ca, published in data.published.items():
        for template in published:
            publishers[template].add(ca)
    delegated = ctx.sources(list(agents_for), ADEdge.DelegatedEnrollmentAgent)
    pairs: set[tuple[int, int]] = set()
    for ca2, domains2 in data.chained.items():
        ca2_properties = data.properties[ca2]
        restricted = flag(ca2_properties, "enrollmentagentrestrictionscollected") and flag(
            ca2_properties, "hasenrollmentagentrestrictions")
        for target in data.published.get(ca2, []):
            wanted = data.properties[target]
            if not flag(wanted, "authenticationenabled") or flag(wanted, "requiresmanagerapproval"):
                continue
            if restricted and not delegated.get(target):
                continue
            for agent in agents_for[target]:
                agent_properties = data.properties[agent]
                if flag(agent_properties, "requiresmanagerapproval") \
                        or not adcs.template_signature_ok(agent_properties):
                    continue
                for ca1 in publishers[agent]:
                    shared = data.chained.get(ca1, set()) & domains2
                    if not shared:
                        continue
                    sets = [data.template_enrollers[agent], data.template_enrollers[target],
                            data.ca_enrollers[ca1], data.ca_enrollers[ca2]]
                    if restricted:
                        sets.append(delegated[target])
                    principals = adcs.filter_user_victims(data, ctx.membership.cross_product(*sets), agent_properties)
                    pairs.update((principal, domain) for principal in principals for domain in shared)
    return {ADEdge.ADCSESC3: pairs}


RULE = Rule("ADCSESC3", (ADEdge.ADCSESC3,), compute)
