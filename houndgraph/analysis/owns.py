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

from houndgraph.analysis.context import DOMAIN_ADMINS_SUFFIX, ENTERPRISE_ADMINS_SUFFIX, Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import ADEdge, ADNode

BLOCK_OWNER_IMPLICIT_RIGHTS_INDEX = 28

# Both raw kinds in one pass over the edge table (it has no index on the kind alone).
_RAW = """
SELECT e.kind_id, e.start_id, e.end_id, e.properties->'isinherited', e.properties->>'inheritancehash',
       t.properties->>'domainsid',
       t.kind_ids @> ARRAY[%(computer)s]::smallint[]
         OR t.properties->'gmsa' = 'true'::jsonb OR t.properties->'msa' = 'true'::jsonb
FROM edge e JOIN node t ON t.id = e.end_id
WHERE e.kind_id = ANY(%(raw)s)
"""


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
    admins = admin_principals(ctx) if enforcing else set()
    computer = ctx.kind_id(ADNode.Computer) or -1
    result: dict[str, dict[tuple[int, int], dict[str, Any]]] = {ADEdge.Owns: {}, ADEdge.WriteOwner: {}}
    derived_of = {ctx.kind_id(raw): derived for raw, derived in ((ADEdge.OwnsRaw, ADEdge.Owns),
                                                                 (ADEdge.WriteOwnerRaw, ADEdge.WriteOwner))}
    raw_ids = [kind for kind in derived_of if kind is not None]
    if not raw_ids:
        return result
    for raw_id, start, end, inherited, inheritance_hash, sid, computer_derived in ctx.conn.execute(
        _RAW, {"computer": computer, "raw": raw_ids}
    ).fetchall():
        derived = derived_of[raw_id]
        if sid in enforcing and computer_derived and (derived == ADEdge.WriteOwner or start not in admins):
            continue
        result[derived][(start, end)] = {
            "isacl": True, "isinherited": inherited is True, "inheritancehash": inheritance_hash or "",
        }
    return result


RULE = Rule("Owns", (ADEdge.Owns, ADEdge.WriteOwner), compute)
