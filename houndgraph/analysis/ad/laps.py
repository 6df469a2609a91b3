"""SyncLAPSPassword: principals holding GetChanges and GetChangesInFilteredSet on a collected domain
can read every LAPS password it replicates -> each Computer of that domain with `haslaps = true`."""

from __future__ import annotations

from houndgraph.analysis.ad.dcsync import holders_of_both
from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import ADEdge, ADNode


def compute(ctx: Context) -> Derived:
    syncers = holders_of_both(ctx, ADEdge.GetChanges, ADEdge.GetChangesInFilteredSet)
    sids = dict(ctx.collected_domains)
    pairs: set[tuple[int, int]] = set()
    for domain, principals in syncers.items():
        computers = ctx.node_ids(
            ADNode.Computer,
            "n.properties->'haslaps' = 'true'::jsonb AND n.properties->>'domainsid' = %(sid)s",
            {"sid": sids[domain]},
        )
        pairs.update((principal, computer) for principal in principals for computer in computers)
    return {ADEdge.SyncLAPSPassword: pairs}


RULE = Rule("SyncLAPSPassword", (ADEdge.SyncLAPSPassword,), compute)
