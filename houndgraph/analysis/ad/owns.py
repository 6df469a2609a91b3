"""Owns and WriteOwner from the collector's raw owner edges (OwnsRaw, WriteOwnerRaw).

Reference `PostOwnsAndWriteOwner`, in our words. A domain enforces BlockOwnerImplicitRights when the
29th character (index 28) of its `dsheuristics` is `1`. For a raw edge whose target's `domainsid`
names such a domain:
* Owns is kept when the target is not computer-derived (not a Computer, not `gmsa`/`msa` = true), or
  when the owner is Domain Admins / Enterprise Admins (`-512` / `-519`) or a transitive member of one.
* WriteOwner is kept only when the target is not computer-derived.
Everywhere else both are emitted as they are. The derived edge is an ACL edge: `isacl = true`, with
the raw edge's `isinherited` and `inheritancehash`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from houndgraph.analysis.context import DOMAIN_ADMINS_SUFFIX, ENTERPRISE_ADMINS_SUFFIX, Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.analysis.sink import GroupedPairs, PairArray
from houndgraph.graph.arrays import in_sorted
from houndgraph.graph.kinds import ADEdge, ADNode

BLOCK_OWNER_IMPLICIT_RIGHTS_INDEX = 28

# Both raw kinds in one pass over the edge table (it has no index on the kind alone), grouped by what the derived
# edge keeps of the raw one, each group's ends as one bytea of big-endian int8s per column: no row crosses to the
# client (a row per edge cost 2.6 s of Python at 300k objects). `blocked`: the target is computer-derived in a domain
# that enforces BlockOwnerImplicitRights; the join with the targets is made only when some domain does (the node
# table hashed whole spilled to disk and took half the rule's time).
_RAW = """
SELECT e.kind_id, coalesce(e.properties->'isinherited' = 'true'::jsonb, false),
       coalesce(e.properties->>'inheritancehash', ''), {blocked},
       string_agg(int8send(e.start_id), ''::bytea), string_agg(int8send(e.end_id), ''::bytea)
FROM edge e {join}
WHERE e.kind_id = ANY(%(raw)s)
GROUP BY 1, 2, 3, 4
"""
_BLOCKED = """coalesce(t.properties->>'domainsid' = ANY(%(enforcing)s)
         AND (t.kind_ids @> ARRAY[%(computer)s]::smallint[]
              OR t.properties->'gmsa' = 'true'::jsonb OR t.properties->'msa' = 'true'::jsonb), false)"""


def enforcing_domains(ctx: Context) -> set[str]:
    """SIDs of the domains whose dSHeuristics turn on BlockOwnerImplicitRights."""
    rows = ctx.nodes(ADNode.Domain, columns=("domainsid", "objectid", "dsheuristics"))
    enforcing = set()
    for _, sid, objectid, heuristics in rows:
        if isinstance(heuristics, str) and len(heuristics) > BLOCK_OWNER_IMPLICIT_RIGHTS_INDEX \
                and heuristics[BLOCK_OWNER_IMPLICIT_RIGHTS_INDEX] == "1":
            enforcing.add(str(sid or objectid))
    return enforcing


def admin_principals(ctx: Context) -> set[int]:
    admins = {row[0] for row in ctx.conn.execute(
        "SELECT id FROM node WHERE properties->>'objectid' LIKE %s OR properties->>'objectid' LIKE %s",
        (f"%{DOMAIN_ADMINS_SUFFIX}", f"%{ENTERPRISE_ADMINS_SUFFIX}"),
    )}
    return ctx.membership.unrolled(admins)


def compute(ctx: Context) -> Derived:
    enforcing = enforcing_domains(ctx)
    derived_of = {ctx.kind_id(raw): derived for raw, derived in ((ADEdge.OwnsRaw, ADEdge.Owns),
                                                                 (ADEdge.WriteOwnerRaw, ADEdge.WriteOwner))}
    raw_ids = [kind for kind in derived_of if kind is not None]
    groups: dict[str, list[tuple[dict[str, Any], PairArray]]] = {ADEdge.Owns: [], ADEdge.WriteOwner: []}
    if raw_ids:
        admins = np.asarray(sorted(admin_principals(ctx)), dtype=np.int64) if enforcing else None
        query = _RAW.format(blocked=_BLOCKED, join="JOIN node t ON t.id = e.end_id") if enforcing else \
            _RAW.format(blocked="false", join="")
        rows = ctx.conn.execute(query, {"raw": raw_ids, "enforcing": sorted(enforcing),
                                        "computer": ctx.kind_id(ADNode.Computer) or -1}, binary=True)
        for raw_id, inherited, inheritance_hash, blocked, starts, ends in rows:
            derived = derived_of[raw_id]
            pairs = np.column_stack([np.frombuffer(column, dtype=">i8").astype(np.int64) for column in (starts, ends)])
            if blocked:
                if derived == ADEdge.WriteOwner or admins is None:
                    continue
                pairs = pairs[in_sorted(pairs[:, 0], admins)]  # computer-derived targets: only the admins' Owns
            properties = {"isacl": True, "isinherited": inherited, "inheritancehash": inheritance_hash}
            groups[derived].append((properties, pairs))
    # Groups in the order of their properties: which group a repeated pair takes never depends on the scan.
    return {kind: GroupedPairs(tuple(sorted(found, key=lambda group: (group[0]["isinherited"],
                                                                     group[0]["inheritancehash"]))))
            for kind, found in groups.items()}


RULE = Rule("Owns", (ADEdge.Owns, ADEdge.WriteOwner), compute)
