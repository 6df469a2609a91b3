"""Privilege zones computed during analysis (reference/behaviour.md §3).

For every tag and each of its enabled selectors: resolve the seeds, expand them as the tag's type says
(zones: children then parents; labels: children; owned: none), and reconcile the selector's stored
nodes. Then tag: zones in position order, a node going only to the first zone that holds it; labels
and owned independently; with `require_certify`, only certified members. Finally the Meta nodes are
refreshed from the Tier Zero members.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from houndgraph.analysis.context import Context
from houndgraph.analysis.zones import meta, store, tagging
from houndgraph.analysis.zones.expansion import Walker, expand
from houndgraph.analysis.zones.model import EXPANSION_OF_TYPE, TAG_KIND_PREFIX, Expansion, TagType
from houndgraph.analysis.zones.seeds import resolve


@dataclass(slots=True)
class ZoneReport:
    members: dict[str, int] = field(default_factory=dict)  # tag name -> tagged nodes
    # Selector rows added, removed or changed, and nodes that gained or lost a tag kind: both 0 when the run
    # left every zone as the last one did (the Meta nodes, rewritten by every run, are not counted).
    reselected: int = 0
    retagged: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.reselected or self.retagged)


def tag_zones(ctx: Context, *, graph_unchanged: bool = False) -> ZoneReport:
    """`graph_unchanged`: nothing has written the graph since the last run (its rules were skipped)."""
    conn = ctx.conn
    report = ZoneReport(reselected=store.forget_unselected(conn))
    tags = store.load_tags(conn)
    kinds = ctx.catalogue.all()
    kind_names = {kind_id: name for name, kind_id in kinds.items()}
    walker = Walker(conn, kinds)
    claimed: set[int] = set()
    tag_kinds: list[int] = []
    for tag in tags:
        how = EXPANSION_OF_TYPE[tag.type]
        if how == Expansion.ALL and not ctx.options.tag_parent_objects:
            how = Expansion.CHILDREN
        for selector in tag.selectors:
            selected = expand(walker, resolve(conn, selector.seeds, kinds), how)
            report.reselected += store.save_selection(conn, selector, selected, kind_names)
        members = store.members(conn, tag)
        if tag.type == TagType.ZONE:
            members -= claimed
            claimed |= members
        kind_id = ctx.catalogue.id(tag.kind)
        # With no graph write since the last run and the tag's kind as it recorded, the nodes holding the tag's
        # system word are exactly those that run tagged with its kind.
        words_as_tagged = not store.set_tag_kind(conn, tag.id, kind_id) and graph_unchanged
        report.retagged += tagging.apply(conn, tag.kind, kind_id, members, words_as_tagged=words_as_tagged)
        tag_kinds.append(kind_id)
        report.members[tag.name] = len(members)
    stale = {kind_id for name, kind_id in kinds.items() if name.startswith(TAG_KIND_PREFIX)} - set(tag_kinds)
    report.retagged += tagging.clear_other_tags(conn, stale)
    meta.refresh(ctx)
    return report
