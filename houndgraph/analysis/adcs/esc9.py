"""ADCSESC9a / ADCSESC9b: rewrite a victim's UPN (9a) or DNS name (9b), enroll as the victim on a
template without the SID security extension, and the weak certificate binding maps the certificate
to whoever now holds that name.

For each hosted Enterprise CA and each domain it chains to whose forest has weak certificate binding
(see `adcs`), and each published template that needs no manager approval, enables authentication, has
`nosecurityextension`, does not let the enrollee supply the subject, is schema 1 or requires no
authorized signature, and (9a) requires a UPN or SPN in the subject alternative name, or (9b) requires
a DNS name:
* victims: the non-group principals enrolling on the template *and* on the CA, each right expanded
  through every group (no Everyone shortcut here); for 9a users are dropped when the template
  requires a DNS name; for 9b only computers;
* attackers: every User, Group or Computer holding GenericAll, GenericWrite, Owns, WriteOwner or
  WriteDacl on a victim -> the domain.
ESC10 (`esc10`) is the same with UPN certificate mapping instead of weak binding and no
security-extension condition.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from houndgraph.analysis.adcs import common as adcs
from houndgraph.analysis.adcs.common import ADCSData, flag
from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import ADEdge

ATTACK_RIGHTS = (ADEdge.GenericAll, ADEdge.GenericWrite, ADEdge.Owns, ADEdge.WriteOwner, ADEdge.WriteDacl)


def name_template_valid(template: dict[str, Any], scenario_b: bool) -> bool:
    """The conditions ESC9 and ESC10 share, plus the scenario's name requirement."""
    if flag(template, "requiresmanagerapproval") or not flag(template, "authenticationenabled") \
            or flag(template, "enrolleesuppliessubject") or not adcs.template_signature_ok(template):
        return False
    if scenario_b:
        return flag(template, "subjectaltrequiredns")
    return flag(template, "subjectaltrequireupn") or flag(template, "subjectaltrequirespn")


def victim_attacks(ctx: Context, data: ADCSData, domain_flag: set[int], scenario_b: bool,
                   template_valid: Callable[[dict[str, Any]], bool]) -> set[tuple[int, int]]:
    attackers_of: dict[int, set[int]] | None = None
    principals = data.users | data.groups | data.computers
    pairs: set[tuple[int, int]] = set()
    for ca, domains in data.chained.items():
        targets = domains & domain_flag
        if not targets or not data.ca_enrollers[ca]:
            continue
        ca_victims = adcs.leaf_principals(ctx, data, data.ca_enrollers[ca])
        for template in data.published.get(ca, []):
            properties = data.properties[template]
            if not template_valid(properties):
                continue
            victims = adcs.leaf_principals(ctx, data, data.template_enrollers[template]) & ca_victims
            victims = data.computers & victims if scenario_b else adcs.filter_user_victims(data, victims, properties)
            if not victims:
                continue
            if attackers_of is None:
                attackers_of = {}
            missing = victims - attackers_of.keys()
            attackers_of.update(ctx.sources(missing, *ATTACK_RIGHTS))
            attackers = set().union(*(attackers_of[victim] for victim in victims)) & principals
            pairs.update((attacker, domain) for attacker in attackers for domain in targets)
    return pairs


def _compute(ctx: Context, kind: str) -> Derived:
    data = adcs.data(ctx)
    scenario_b = kind == ADEdge.ADCSESC9b

    def valid(template: dict[str, Any]) -> bool:
        return flag(template, "nosecurityextension") and name_template_valid(template, scenario_b)

    return {kind: victim_attacks(ctx, data, data.weak_binding, scenario_b, valid)}


RULE_9A = Rule("ADCSESC9a", (ADEdge.ADCSESC9a,), lambda ctx: _compute(ctx, ADEdge.ADCSESC9a))
RULE_9B = Rule("ADCSESC9b", (ADEdge.ADCSESC9b,), lambda ctx: _compute(ctx, ADEdge.ADCSESC9b))
