"""ADCSESC6a / ADCSESC6b: a CA that lets enrollees add any subject alternative name (EDITF flag,
`isuserspecifiessanenabled`) turns ordinary enrollment into impersonation.

For each hosted Enterprise CA with `isuserspecifiessanenabled = true` and each published template that
needs no manager approval and is schema 1 or requires no authorized signature:
* 6a: the template also has `nosecurityextension` and `authenticationenabled` (Kerberos mapping is
  weak without the SID extension);
* 6b: the template allows Schannel client authentication (`schannelauthenticationenabled`, or its
  `effectiveekus` are empty or contain Client Authentication or Any Purpose), and the target domain's
  forest has a DC with UPN certificate mapping (see `adcs`).
The principals enrolling on both template and CA (cross product), without users when the template
requires a DNS name -> every domain the CA chains to (for 6b: those with UPN mapping).
"""

from __future__ import annotations

from typing import Any

from houndgraph.analysis.adcs import common as adcs
from houndgraph.analysis.adcs.common import flag
from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import ADEdge

EKU_CLIENT_AUTHENTICATION = "1.3.6.1.5.5.7.3.2"
EKU_ANY_PURPOSE = "2.5.29.37.0"


def _base_valid(template: dict[str, Any]) -> bool:
    return not flag(template, "requiresmanagerapproval") and adcs.template_signature_ok(template)


def valid_6a(template: dict[str, Any]) -> bool:
    return _base_valid(template) and flag(template, "nosecurityextension") and flag(template, "authenticationenabled")


def valid_6b(template: dict[str, Any]) -> bool:
    ekus = adcs.strings(template, "effectiveekus")
    schannel = flag(template, "schannelauthenticationenabled") or (
        ekus is not None and (not ekus or EKU_CLIENT_AUTHENTICATION in ekus or EKU_ANY_PURPOSE in ekus))
    return _base_valid(template) and schannel


def _compute(ctx: Context, kind: str) -> Derived:
    data = adcs.data(ctx)
    scenario_b = kind == ADEdge.ADCSESC6b
    valid = valid_6b if scenario_b else valid_6a
    pairs: set[tuple[int, int]] = set()
    for ca, domains in data.chained.items():
        if not flag(data.properties[ca], "isuserspecifiessanenabled"):
            continue
        targets = domains & data.upn_mapping if scenario_b else domains
        if not targets:
            continue
        for template in data.published.get(ca, []):
            properties = data.properties[template]
            if not valid(properties):
                continue
            principals = ctx.membership.cross_product(data.template_enrollers[template], data.ca_enrollers[ca])
            principals = adcs.filter_user_victims(data, principals, properties)
            pairs.update((principal, domain) for principal in principals for domain in targets)
    return {kind: pairs}


RULE_6A = Rule("ADCSESC6a", (ADEdge.ADCSESC6a,), lambda ctx: _compute(ctx, ADEdge.ADCSESC6a))
RULE_6B = Rule("ADCSESC6b", (ADEdge.ADCSESC6b,), lambda ctx: _compute(ctx, ADEdge.ADCSESC6b))
