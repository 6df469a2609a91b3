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

from collections.abc import Iterator
from typing import Any

import psycopg

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
    # Many edges carry the same inheritance data: they share one properties mapping (at a million objects,
    # a mapping per edge held about 0.5 GB more at the rule's peak). Rows are converted as they are read.
    shared: dict[tuple[bool, str], dict[str, Any]] = {}
    cursor = ctx.conn.execute(_RAW, {"computer": computer, "raw": raw_ids})
    for raw_id, start, end, inherited, inheritance_hash, sid, computer_derived in _in_batches(cursor):
        derived = derived_of[raw_id]
        if sid in enforcing and computer_derived and (derived == ADEdge.WriteOwner or start not in admins):
            continue
        key = (inherited is True, inheritance_hash or "")
        properties = shared.get(key)
        if properties is None:
            properties = shared[key] = {"isacl": True, "isinherited": key[0], "inheritancehash": key[1]}
        result[derived][(start, end)] = properties
    return result


def _in_batches(cursor: psycopg.Cursor[Any], size: int = 50_000) -> Iterator[Any]:
    """The cursor's rows, converted a batch at a time (a row at a time costs a call each, all at once a list of
    every row)."""
    while batch := cursor.fetchmany(size):
        yield from batch


RULE = Rule("Owns", (ADEdge.Owns, ADEdge.WriteOwner), compute)
