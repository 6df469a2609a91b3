"""Batch preparation in memory, before anything reaches PostgreSQL.

`INSERT ... ON CONFLICT DO UPDATE` cannot touch the same row twice in one statement, so records for
the same object (or the same edge) inside one batch are merged here first, with the same rules the
SQL applies against what is already stored.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from houndgraph.graph.kinds import AD_NODE_KINDS, AZ_NODE_KINDS, ADNode, AZNode
from houndgraph.graph.records import EdgeEnd, EdgeRecord, MatchBy, NodeRecord
from houndgraph.graph.store.properties import StoreProperty

Properties = dict[str, Any]


def merge_properties(stored: Properties, new: Properties) -> None:
    """`stored || new`, except that `collected: true` is never taken back by a later `collected: false`.

    Collectors send stubs (an object id and `collected: false`) for objects they only saw referenced,
    e.g. the trusted domain in a trust; arriving after the full record, such a stub must not mark a
    collected object as uncollected. `pg_merge_properties` in `sql.py` is the same rule in SQL.
    """
    keep_collected = stored.get(StoreProperty.COLLECTED) is True
    stored.update(new)
    if keep_collected:
        stored[StoreProperty.COLLECTED] = True


def add_kinds(kinds: list[str], new: Iterable[str]) -> None:
    """Union that keeps the stored order: the first kinds stay first (they decide the display kind)."""
    for kind in new:
        if kind not in kinds:
            kinds.append(kind)


def placeholder_kinds(kind: str | None) -> tuple[str, ...]:
    """Kinds of a node created because an edge points at an object no record has described yet.

    The collector's kind for the end, plus the platform's base kind for AD and Azure kinds; an end
    without a kind is taken as a bare AD principal (`Base`), which is what SharpHound calls a principal
    whose type it could not resolve. Kinds of other platforms (OpenGraph) get no base kind invented.
    """
    if kind is None or kind == ADNode.Base:
        return (ADNode.Base,)
    if kind == AZNode.Base:
        return (AZNode.Base,)
    if kind in AZ_NODE_KINDS:
        return (kind, AZNode.Base)
    if kind in AD_NODE_KINDS:
        return (kind, ADNode.Base)
    return (kind,)


@dataclass(slots=True)
class MergedNode:
    kinds: list[str]
    properties: Properties
    # False while `properties` is still the caller's dict: it is copied before the first merge into it.
    owned: bool = False


@dataclass(slots=True)
class PreparedNodes:
    """A batch's node writes: full records, ends that name a kind, and bare ends (placeholders only)."""

    records: dict[str, MergedNode] = field(default_factory=dict)
    kinded_ends: dict[str, list[str]] = field(default_factory=dict)
    bare_ends: set[str] = field(default_factory=set)
    # (name, kind or None) pairs of OpenGraph `match_by: name` ends, resolved after the nodes are written.
    names: set[tuple[str, str | None]] = field(default_factory=set)


def prepare_nodes(nodes: Iterable[NodeRecord], edges: Iterable[EdgeRecord]) -> PreparedNodes:
    prepared = PreparedNodes()
    records = prepared.records
    for record in nodes:
        objectid = record.objectid.upper()
        merged = records.get(objectid)
        if merged is None:
            records[objectid] = MergedNode(list(record.kinds), record.properties)
            continue
        add_kinds(merged.kinds, record.kinds)
        if not merged.owned:
            merged.properties = dict(merged.properties)
            merged.owned = True
        merge_properties(merged.properties, record.properties)

    kinded_ends = prepared.kinded_ends
    end_kinds_cache: dict[str | None, tuple[str, ...]] = {}
    for edge in edges:
        for end in (edge.start, edge.end):
            if end.match_by is MatchBy.NAME:
                prepared.names.add((end.value, end.kind))
                continue
            objectid = end.value.upper()
            if end.kind is None:
                if objectid not in records and objectid not in kinded_ends:
                    prepared.bare_ends.add(objectid)
                continue
            kinds = end_kinds_cache.get(end.kind)
            if kinds is None:
                kinds = end_kinds_cache[end.kind] = placeholder_kinds(end.kind)
            merged = records.get(objectid)
            if merged is not None:
                add_kinds(merged.kinds, kinds)
                continue
            stored = kinded_ends.get(objectid)
            if stored is None:
                kinded_ends[objectid] = list(kinds)
                prepared.bare_ends.discard(objectid)
            else:
                add_kinds(stored, kinds)
    return prepared


EdgeKey = tuple[str, str, str]


def end_object_id(end: EdgeEnd, by_name: dict[tuple[str, str | None], str]) -> str | None:
    """The object id an end points at; None for a name that matched no node, or several."""
    if end.match_by is MatchBy.NAME:
        return by_name.get((end.value, end.kind))
    return end.value.upper()
