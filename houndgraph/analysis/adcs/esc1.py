"""ADCSESC1: enrolling on a template that lets the enrollee name any subject is domain compromise.

For each hosted Enterprise CA and each template published to it that needs no manager approval,
enables authentication (`authenticationenabled`), lets the enrollee supply the subject
(`enrolleesuppliessubject`), and is schema 1 or requires no authorized signature: the principals
holding enrollment on both the template and the CA (cross product, see `membership`) -> every domain
the CA chains to.
"""

from __future__ import annotations

from typing import Any

from houndgraph.analysis.adcs import common as adcs
from houndgraph.analysis.adcs.common import flag
from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import ADEdge


def template_valid(template: dict[str, Any]) -> bool:
    return (
        not flag(template, "requiresmanagerapproval")
        and flag(template, "authenticationenabled")
        and flag(template, "enrolleesuppliessubject")
        and adcs.template_signature_ok(template)
    )


def compute(ctx: Context) -> Derived:
    data = adcs.data(ctx)
    pairs: set[tuple[int, int]] = set()
    for ca, domains in data.chained.items():
        principals: set[int] = set()
        for template in data.published.get(ca, []):
            if template_valid(data.properties[template]):
                principals |= ctx.membership.cross_product(data.template_enrollers[template], data.ca_enrollers[ca])
        pairs.update((principal, domain) for principal in principals for domain in domains)
    return {ADEdge.ADCSESC1: pairs}


RULE = Rule("ADCSESC1", (ADEdge.ADCSESC1,), compute)
