"""ProtectAdminGroups: a domain's AdminSDHolder container stamps its ACL on every protected object.

For each collected domain: the Container whose distinguished name starts `CN=ADMINSDHOLDER,CN=SYSTEM,`
(same `domainsid`; the first one, there is one per domain) -> every User, Computer and Group of that
domain with `adminsdholderprotected = true`.
"""

from __future__ import annotations

from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import ADEdge, ADNode

ADMIN_SD_HOLDER_DN_PREFIX = "CN=ADMINSDHOLDER,CN=SYSTEM,"
_PROTECTED_KINDS = (ADNode.User, ADNode.Computer, ADNode.Group)


def compute(ctx: Context) -> Derived:
    pairs: set[tuple[int, int]] = set()
    for _, sid in ctx.collected_domains:
        holders = ctx.node_ids(
            ADNode.Container,
            "upper(n.properties->>'distinguishedname') LIKE %(prefix)s AND n.properties->>'domainsid' = %(sid)s",
            {"prefix": ADMIN_SD_HOLDER_DN_PREFIX + "%", "sid": sid},
        )
        if not holders:
            continue
        holder = min(holders)
        for kind in _PROTECTED_KINDS:
            protected = ctx.node_ids(
                kind,
                "n.properties->'adminsdholderprotected' = 'true'::jsonb AND n.properties->>'domainsid' = %(sid)s",
                {"sid": sid},
            )
            pairs.update((holder, target) for target in protected)
    return {ADEdge.ProtectAdminGroups: pairs}


RULE = Rule("ProtectAdminGroups", (ADEdge.ProtectAdminGroups,), compute)
