"""What analysis reads and writes of the zone tables: tag definitions in, selected nodes out.

The selected nodes of a selector are reconciled with the previous run row by row: a node still selected
keeps its row, so its certification (and the history that explains it) survives; new nodes are added,
nodes no longer selected are removed. Automatic certification (the selector's `auto_certify`) is set or
withdrawn here, but a manual certification or revocation is never overwritten.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import psycopg

from houndgraph.analysis.zones.model import (
    ANALYSIS_ACTOR,
    AutoCertify,
    Certification,
    NodeSource,
    Seed,
    SeedType,
    TagType,
    tag_kind,
)
from houndgraph.graph.kinds import primary_kind

MANUAL_STATES = (Certification.MANUAL, Certification.REVOKED)


@dataclass(frozen=True, slots=True)
class SelectorSpec:
    id: int
    auto_certify: AutoCertify
    seeds: tuple[Seed, ...]


@dataclass(frozen=True, slots=True)
class TagSpec:
    id: int
    type: TagType
    name: str
    position: int | None
    require_certify: bool
    selectors: tuple[SelectorSpec, ...]

    @property
    def kind(self) -> str:
        return tag_kind(self.name)

    @property
    def order(self) -> tuple[int, int, int]:
        """Zones first, by position (a node goes to the highest zone that selects it), then the rest."""
        return (0 if self.type == TagType.ZONE else 1, self.position or 0, self.id)


def load_tags(conn: psycopg.Connection) -> list[TagSpec]:
    """Every live tag with its enabled selectors and their seeds."""
    seeds: dict[int, list[Seed]] = {}
    for selector_id, seed_type, value in conn.execute(
            "SELECT selector_id, type, value FROM asset_group_tag_selector_seeds ORDER BY id"):
        seeds.setdefault(selector_id, []).append(Seed(SeedType(seed_type), value))
    selectors: dict[int, list[SelectorSpec]] = {}
    for selector_id, tag_id, auto_certify in conn.execute(
            "SELECT id, asset_group_tag_id, auto_certify FROM asset_group_tag_selectors "
            "WHERE disabled_at IS NULL ORDER BY id"):
        selectors.setdefault(tag_id, []).append(
            SelectorSpec(selector_id, AutoCertify(auto_certify), tuple(seeds.get(selector_id, ()))))
    tags = [
        TagSpec(tag_id, TagType(tag_type), name, position, bool(require_certify), tuple(selectors.get(tag_id, ())))
        for tag_id, tag_type, name, position, require_certify in conn.execute(
            "SELECT id, type, name, position, require_certify FROM asset_group_tags "
            "WHERE deleted_at IS NULL AND type IN (1, 2, 3)")
    ]
    return sorted(tags, key=lambda tag: tag.order)


def forget_unselected(conn: psycopg.Connection) -> int:
    """Disabled selectors and deleted tags select nothing; returns how many selected nodes that removed."""
    return conn.execute(
        "DELETE FROM asset_group_tag_selector_nodes sn USING asset_group_tag_selectors s "
        "JOIN asset_group_tags t ON t.id = s.asset_group_tag_id "
        "WHERE sn.selector_id = s.id AND (s.disabled_at IS NOT NULL OR t.deleted_at IS NOT NULL)").rowcount


def set_tag_kind(conn: psycopg.Connection, tag_id: int, kind_id: int) -> bool:
    """Record the tag's graph kind; whether it differs from the one the last run recorded."""
    return conn.execute("UPDATE asset_group_tags SET kind_id = %s WHERE id = %s AND kind_id IS DISTINCT FROM %s",
                        (kind_id, tag_id, kind_id)).rowcount > 0


def auto_state(auto_certify: AutoCertify, source: NodeSource) -> bool:
    return auto_certify == AutoCertify.ALL_MEMBERS or (
        auto_certify == AutoCertify.SEEDS_ONLY and source == NodeSource.SEED)


def save_selection(conn: psycopg.Connection, selector: SelectorSpec, selected: Mapping[int, NodeSource],
                   kind_names: Mapping[int, str]) -> int:
    """Reconcile the selector's rows with `selected` (node id -> source); returns how many rows that added,
    removed or changed."""
    previous = {node: (certified, source) for node, certified, source in conn.execute(
        "SELECT node_id, certified, source FROM asset_group_tag_selector_nodes WHERE selector_id = %s",
        (selector.id,))}
    gone = sorted(set(previous) - set(selected))
    if gone:
        conn.execute("DELETE FROM asset_group_tag_selector_nodes WHERE selector_id = %s AND node_id = ANY(%s)",
                     (selector.id, gone))
    rows: list[tuple[Any, ...]] = []
    for node, source in selected.items():
        certified, old_source = previous.get(node, (Certification.PENDING, None))
        if certified not in MANUAL_STATES:
            certified = Certification.AUTO if auto_state(selector.auto_certify, source) else Certification.PENDING
        if node not in previous or certified != previous[node][0] or source != old_source:
            rows.append((node, int(certified), int(source)))
    if not rows:
        return len(gone)
    details = node_details(conn, [row[0] for row in rows], kind_names)
    conn.execute(
        """INSERT INTO asset_group_tag_selector_nodes AS sn (selector_id, node_id, certified, certified_by, source,
               node_primary_kind, node_environment_id, node_object_id, node_name)
           SELECT %(selector)s, r.node, r.certified, CASE WHEN r.certified = %(auto)s THEN %(actor)s END, r.source,
                  r.kind, r.environment, r.objectid, r.name
           FROM unnest(%(nodes)s::bigint[], %(certified)s::int[], %(sources)s::int[], %(kinds)s::text[],
                       %(environments)s::text[], %(objectids)s::text[], %(names)s::text[])
                AS r(node, certified, source, kind, environment, objectid, name)
           ON CONFLICT (selector_id, node_id) DO UPDATE SET
               source = EXCLUDED.source, updated_at = now(),
               certified = EXCLUDED.certified,
               certified_by = CASE WHEN EXCLUDED.certified = sn.certified THEN sn.certified_by
                                   ELSE EXCLUDED.certified_by END,
               node_primary_kind = EXCLUDED.node_primary_kind, node_environment_id = EXCLUDED.node_environment_id,
               node_object_id = EXCLUDED.node_object_id, node_name = EXCLUDED.node_name""",
        {"selector": selector.id, "auto": int(Certification.AUTO), "actor": ANALYSIS_ACTOR,
         "nodes": [row[0] for row in rows], "certified": [row[1] for row in rows],
         "sources": [row[2] for row in rows],
         **{key: [details.get(row[0], ("", "", "", ""))[i] for row in rows]
            for i, key in enumerate(("kinds", "environments", "objectids", "names"))}},
    )
    return len(gone) + len(rows)


def node_details(conn: psycopg.Connection, nodes: list[int],
             kind_names: Mapping[int, str]) -> dict[int, tuple[str, str, str, str]]:
    """The cached display fields of each node: primary kind, environment, object id, name."""
    found: dict[int, tuple[str, str, str, str]] = {}
    rows = conn.execute(
        "SELECT id, kind_ids, properties->>'primarykind', "
        "coalesce(properties->>'domainsid', properties->>'tenantid', ''), "
        "coalesce(properties->>'objectid', ''), coalesce(properties->>'name', properties->>'objectid', '') "
        "FROM node WHERE id = ANY(%s)", (nodes,))
    for node, kind_ids, own_kind, environment, objectid, name in rows:
        kind = own_kind or primary_kind(kind_names[k] for k in kind_ids if k in kind_names)
        found[node] = (kind, environment, objectid, name)
    return found


def members(conn: psycopg.Connection, tag: TagSpec) -> set[int]:
    """The nodes the tag's enabled selectors selected; with `require_certify`, only the certified ones."""
    accepted = (Certification.MANUAL, Certification.AUTO) if tag.require_certify else tuple(Certification)
    states = [int(state) for state in accepted]
    rows = conn.execute(
        "SELECT DISTINCT sn.node_id FROM asset_group_tag_selector_nodes sn "
        "JOIN asset_group_tag_selectors s ON s.id = sn.selector_id "
        "JOIN node n ON n.id = sn.node_id "
        "WHERE s.asset_group_tag_id = %s AND s.disabled_at IS NULL AND sn.certified = ANY(%s)", (tag.id, states))
    return {row[0] for row in rows}
