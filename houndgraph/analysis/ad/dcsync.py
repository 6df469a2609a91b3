"""DCSync: principals holding both GetChanges and GetChangesAll on a collected domain -> that domain.

Each right counts through group membership; the holders are the cross product of the two sets of
first-degree holders (see `membership.Membership.cross_product`), so a group holding both rights gets
the edge, not each of its members.
"""

from __future__ import annotations

from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import ADEdge


def holders_of_both(ctx: Context, first: str, second: str) -> dict[int, set[int]]:
    """Per collected domain, the principals holding both rights on it."""
    domains = [domain for domain, _ in ctx.collected_domains]
    first_holders = ctx.sources(domains, first)
    second_holders = ctx.sources(domains, second)
    return {
        domain: ctx.membership.cross_product(first_holders[domain], second_holders[domain])
        for domain in domains
        if first_holders[domain] and second_holders[domain]
    }


def compute(ctx: Context) -> Derived:
    pairs = {
        (principal, domain)
        for domain, principals in holders_of_both(ctx, ADEdge.GetChanges, ADEdge.GetChangesAll).items()
        for principal in principals
    }
    return {ADEdge.DCSync: pairs}


RULE = Rule("DCSync", (ADEdge.DCSync,), compute)
