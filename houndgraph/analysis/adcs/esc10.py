"""ADCSESC10a / ADCSESC10b: as ESC9 (see `esc9`), but the weakness is Schannel's UPN certificate
mapping in the forest (a DC's `certificatemappingmethodsraw` has bit 0x4), and the template needs no
`nosecurityextension`. 10a: templates requiring a UPN or SPN, victims users and computers; 10b:
templates requiring a DNS name, victims computers."""

from __future__ import annotations

from typing import Any

from houndgraph.analysis.adcs import common as adcs
from houndgraph.analysis.adcs.esc9 import name_template_valid, victim_attacks
from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import ADEdge


def _compute(ctx: Context, kind: str) -> Derived:
    data = adcs.data(ctx)
    scenario_b = kind == ADEdge.ADCSESC10b

    def valid(template: dict[str, Any]) -> bool:
        return name_template_valid(template, scenario_b)

    return {kind: victim_attacks(ctx, data, data.upn_mapping, scenario_b, valid)}


RULE_10A = Rule("ADCSESC10a", (ADEdge.ADCSESC10a,), lambda ctx: _compute(ctx, ADEdge.ADCSESC10a))
RULE_10B = Rule("ADCSESC10b", (ADEdge.ADCSESC10b,), lambda ctx: _compute(ctx, ADEdge.ADCSESC10b))
