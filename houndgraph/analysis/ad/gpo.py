"""GPOAppliesTo and CanApplyGPO: which GPOs reach which users and computers, and who can link one there.

Reference `PostGPOs`, in our words. From each collected domain, walk down the Contains tree through OUs
and Containers, carrying three lists: the GPOs inherited, the enforced GPOs inherited, and the
principals able to link GPOs above.
* At a Domain or OU: principals (User, Group, Computer) holding WriteGPLink, GenericWrite, GenericAll,
  WriteDacl, Owns or WriteOwner on it join the linkers; the GPOs with a GPLink to it apply here, and
  those whose link is `enforced` join the enforced list passed down.
* An OU with `blocksinheritance = true` receives only the enforced inherited GPOs; every other node
  receives all inherited ones (on top of its own links).
* Each User and Computer directly contained gets GPOAppliesTo from every GPO applying at its parent and
  CanApplyGPO from every linker collected on the way down.

The walk visits containers only; a container's leaves get their edges as one product of arrays (sources by
leaves), so the rule's millions of edges at a million objects (every leaf times the domain's linkers) are never
Python tuples (`sink.PairArray`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import numpy as np

from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.analysis.sink import PairArray
from houndgraph.graph.kinds import ADEdge, ADNode

LINK_RIGHTS = (ADEdge.WriteGPLink, ADEdge.GenericWrite, ADEdge.GenericAll, ADEdge.WriteDacl, ADEdge.Owns,
               ADEdge.WriteOwner)

_LINKS = """
SELECT e.start_id, e.end_id, e.properties->'enforced' = 'true'::jsonb
FROM edge e JOIN node g ON g.id = e.start_id AND g.kind_ids @> ARRAY[%(gpo)s]::smallint[]
WHERE e.kind_id = %(gplink)s
"""


def _product(sources: Iterable[int], leaves: PairArray) -> PairArray:
    """Every (source, leaf) pair."""
    starts = np.fromiter(sources, dtype=np.int64)
    return np.column_stack((np.repeat(starts, len(leaves)), np.tile(leaves, len(starts))))


def _stacked(parts: list[PairArray]) -> PairArray:
    return np.concatenate(parts) if parts else np.empty((0, 2), dtype=np.int64)


def compute(ctx: Context) -> Derived:
    applies: list[PairArray] = []
    can_apply: list[PairArray] = []
    domains = [domain for domain, _ in ctx.collected_domains]
    if not domains:
        return {ADEdge.GPOAppliesTo: _stacked(applies), ADEdge.CanApplyGPO: _stacked(can_apply)}
    children: dict[int, list[int]] = defaultdict(list)
    for parent, child in ctx.edges(ADEdge.Contains):
        children[parent].append(child)
    ous = set(ctx.node_ids(ADNode.OU))
    containers = set(ctx.node_ids(ADNode.Container)) | ous
    leaves = set(ctx.node_ids(ADNode.User)) | set(ctx.node_ids(ADNode.Computer))
    principals = leaves | set(ctx.node_ids(ADNode.Group))
    blocking = set(ctx.node_ids(ADNode.OU, "n.properties->'blocksinheritance' = 'true'::jsonb"))
    links: dict[int, list[tuple[int, bool]]] = defaultdict(list)
    gpo, gplink = ctx.kind_id(ADNode.GPO), ctx.kind_id(ADEdge.GPLink)
    if gpo is not None and gplink is not None:
        for source, target, enforced in ctx.conn.execute(_LINKS, {"gpo": gpo, "gplink": gplink}):
            links[target].append((source, bool(enforced)))
    linkers = ctx.sources(sorted(ous | set(domains)), *LINK_RIGHTS)

    for domain in domains:
        stack: list[tuple[int, tuple[int, ...], tuple[int, ...], frozenset[int]]] = [(domain, (), (), frozenset())]
        visited: set[int] = set()
        while stack:
            node, inherited, enforced, appliers = stack.pop()
            if node in visited:
                continue
            visited.add(node)
            applying: list[int] = []
            passed_enforced = enforced
            if node == domain or node in ous:
                appliers = appliers | (linkers.get(node, set()) & principals)
                applying = [source for source, _ in links[node]]
                passed_enforced = enforced + tuple(source for source, is_enforced in links[node] if is_enforced)
            applying.extend(enforced if node in blocking else inherited)
            contained = []
            for child in children[node]:
                if child in leaves:
                    contained.append(child)
                elif child in containers:
                    stack.append((child, tuple(applying), passed_enforced, appliers))
            if contained:
                targets = np.array(contained, dtype=np.int64)
                if applying:
                    applies.append(_product(applying, targets))
                if appliers:
                    can_apply.append(_product(appliers, targets))
    return {ADEdge.GPOAppliesTo: _stacked(applies), ADEdge.CanApplyGPO: _stacked(can_apply)}


RULE = Rule("GPOs", (ADEdge.GPOAppliesTo, ADEdge.CanApplyGPO), compute)
