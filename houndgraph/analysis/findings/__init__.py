"""Attack-path findings and posture, computed at the end of every analysis run, after Tier Zero tagging.

`record(ctx)` finds the candidates (`detect`), counts their impact (`reach`), writes the findings and
one row of history per environment and type (`store`). Definitions, in one place:

* Eligible principals of an environment: enabled Users and Computers whose `domainsid` is the domain
  SID, and AZUsers not disabled whose `tenantid` is the tenant, that do not carry the Tier Zero tag.
* Impact of a finding: how many eligible principals of its environment have a path (over the
  traversable edge kinds, of length 0 or more) to its principal, and that number's share of all
  eligible principals. Types marked `Impact.EVERYONE` (roastable users, large default groups that
  hold everyone implicitly) impact every eligible principal.
* Composite risk of a type in an environment: the share, in percent, of eligible principals that
  reach the principal of at least one of its findings not accepted at the run's time.
* Exposure of an environment: the share, in percent, of eligible principals with a path into Tier
  Zero. Critical risk count: the types whose composite risk is 95 % or more.
"""

from __future__ import annotations

import hashlib
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
import orjson

from houndgraph.analysis.context import Context
from houndgraph.analysis.findings import detect, store
from houndgraph.analysis.findings.detect import Candidate
from houndgraph.analysis.findings.finding_types import FINDING_TYPES, Family, Impact, Platform
from houndgraph.analysis.findings.reach import Ids, Mask, Reach, unpack
from houndgraph.graph import edge_ends
from houndgraph.graph.kinds import (
    AD_TRAVERSABLE_EDGES,
    AZ_TRAVERSABLE_EDGES,
    TIER_ZERO_TAG,
    ADNode,
    AZNode,
    primary_kind,
)

CRITICAL_PERCENT = 95.0


@dataclass(slots=True)
class FindingsReport:
    run_id: str
    findings: int = 0
    environments: dict[str, float] = field(default_factory=dict)  # environment -> exposure (percent)


def accepted(ctx: Context) -> tuple[set[tuple[str, str, str]], str]:
    """The findings accepted at the run's time, and a digest of them: with the graph and the zones, all that
    decides a run's findings and history."""
    keys = store.accepted_keys(ctx.conn, ctx.now)
    return keys, hashlib.sha256(orjson.dumps(sorted(keys))).hexdigest()


def repeat(ctx: Context, previous_run_at: datetime) -> bool:
    """The findings and history of the run at `previous_run_at` again, at this run's time: for a run whose
    graph, zones and accepted findings are as they were then. False when that run's history is gone. The finding
    rows are not written: every unresolved one is found again, at the run's time (`analysis.generation.save`)."""
    return store.repeat_history(ctx.conn, uuid.uuid4(), ctx.now, previous_run_at) > 0


def record(ctx: Context, accepted: set[tuple[str, str, str]]) -> FindingsReport:
    """Find, count and write the findings and the run's history; `accepted`: the findings accepted now."""
    resolver = detect.Environments(ctx)
    large_groups = detect.large_default_groups(ctx)
    candidates = detect.relationships(ctx, resolver, large_groups) + detect.configuration(ctx, resolver)
    tier_zero = _tier_zero(ctx, resolver)
    eligible = _eligible(ctx, set(tier_zero))
    starts, ends = _traversable_edges(ctx)
    extra = np.asarray(sorted({*tier_zero, *eligible, *large_groups, *(c.principal for c in candidates)}),
                       dtype=np.int64)
    reach = Reach(starts, ends, extra)
    del starts, ends  # 16 bytes an edge, no longer needed: the snapshot holds its own indexes
    exposed = reach.ancestors(reach.index(sorted(tier_zero))) if tier_zero else np.zeros(reach.size, dtype=np.bool_)
    environment_of = _environments(ctx, resolver, list(large_groups))
    path_type = FINDING_TYPES["LargeDefaultGroupsPathToTierZero"]
    candidates += [Candidate(path_type, environment_of[group], group) for group in large_groups
                   if exposed[reach.index([group])[0]] and group in environment_of]

    rows = _describe(ctx, candidates)
    by_environment: dict[str, list[int]] = defaultdict(list)
    for node, environment in eligible.items():
        by_environment[environment].append(node)
    counts = _impact(reach, candidates, rows, by_environment, large_groups, accepted)
    store.write_findings(ctx.conn, rows, ctx.now)

    tenants = _tenants(ctx)
    environments = sorted({*(str(sid) for _, sid in ctx.collected_domains), *tenants}
                          | {row.domain_sid for row in rows})
    postures = _postures(environments, by_environment, reach, exposed, tier_zero, counts)
    run_id = uuid.uuid4()
    store.write_history(ctx.conn, run_id, ctx.now, _history(environments, tenants, counts), postures)
    return FindingsReport(run_id=str(run_id), findings=len(rows),
                          environments={posture.domain_sid: posture.exposure_index for posture in postures})


def _postures(environments: list[str], by_environment: dict[str, list[int]], reach: Reach, exposed: Mask,
              tier_zero: dict[int, str], counts: list[store.RiskCount]) -> list[store.Posture]:
    tier_zero_size: dict[str, int] = defaultdict(int)
    for environment in tier_zero.values():
        tier_zero_size[environment] += 1
    postures = []
    for environment in environments:
        members = by_environment.get(environment, [])
        exposed_count = int(exposed[reach.index(members)].sum()) if members else 0
        mine = [count for count in counts if count.domain_sid == environment]
        postures.append(store.Posture(
            domain_sid=environment, exposure_index=100.0 * exposed_count / len(members) if members else 0.0,
            exposed_count=exposed_count, principal_count=len(members),
            tier_zero_count=tier_zero_size.get(environment, 0),
            critical_risk_count=sum(1 for count in mine if count.composite_risk >= CRITICAL_PERCENT),
            finding_count=sum(count.finding_count for count in mine),
        ))
    return postures


def _history(environments: list[str], tenants: set[str], counts: list[store.RiskCount]) -> list[store.RiskCount]:
    """The run's counts, plus a zero for every other type of the environment's platform: one point per run."""
    platform_of = {environment: Platform.AZURE if environment in tenants else Platform.AD
                   for environment in environments}
    history = [count for count in counts if count.domain_sid in platform_of]
    present = {(count.domain_sid, count.finding) for count in history}
    history += [store.RiskCount(environment, finding.name, 0, 0, 0.0) for environment in environments
                for finding in FINDING_TYPES.values()
                if finding.platform is platform_of.get(environment) and (environment, finding.name) not in present]
    return history


def _impact(reach: Reach, candidates: list[Candidate], rows: list[store.FindingRow],
            by_environment: dict[str, list[int]], large_groups: dict[int, bool],
            accepted: set[tuple[str, str, str]]) -> list[store.RiskCount]:
    """Fill each row's impact; return the per-(environment, type) counts, accepted findings left out."""
    sizes = {environment: len(nodes) for environment, nodes in by_environment.items()}
    # Eligible principals per environment as distinct components, weighted by how many they hold.
    weighted = {environment: np.unique(reach.components[reach.index(nodes)], return_counts=True)
                for environment, nodes in by_environment.items()}
    everyone = [c.finding.impact is Impact.EVERYONE or large_groups.get(c.principal, False) for c in candidates]
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)  # (environment, type) -> unaccepted positions
    for position, row in enumerate(rows):
        if row.key not in accepted:
            groups[(row.domain_sid, row.finding)].append(position)
        if everyone[position]:
            _set_impact(row, sizes.get(row.domain_sid, 0), sizes.get(row.domain_sid, 0))
    principal_components = reach.components[reach.index([candidate.principal for candidate in candidates])]
    component_of = {position: int(component) for position, component in enumerate(principal_components.tolist())
                    if not everyone[position]}
    # (environment, type) -> the environment's components reaching one of its unaccepted findings.
    union: dict[tuple[str, str], Mask] = {
        key: np.zeros(len(weighted[key[0]][0]), dtype=np.bool_) for key in groups if key[0] in weighted}
    # Each component's findings, so that a chunk of components visits only its own (a pass over every finding
    # per chunk was quadratic: some 250k findings in 250 chunks at a million objects).
    positions_of: dict[int, list[int]] = defaultdict(list)
    for position, component in component_of.items():
        positions_of[component].append(position)
    unaccepted = {position for positions in groups.values() for position in positions}
    if positions_of:
        for chunk, bits in reach.reaching(np.asarray(sorted(positions_of), dtype=np.int64)):
            chunk_components = chunk.tolist()
            for environment, (components, weights) in weighted.items():
                matrix = unpack(bits[components], len(chunk))
                counts = weights @ matrix
                columns: dict[tuple[str, str], set[int]] = defaultdict(set)
                for column, component in enumerate(chunk_components):
                    for position in positions_of[component]:
                        row = rows[position]
                        if row.domain_sid != environment:
                            continue
                        _set_impact(row, int(counts[column]), sizes[environment])
                        if position in unaccepted:
                            columns[(row.domain_sid, row.finding)].add(column)
                for key, chosen in columns.items():
                    union[key] |= matrix[:, sorted(chosen)].any(axis=1)
    counts_by_type = []
    for key, positions in groups.items():
        environment, finding = key
        size = sizes.get(environment, 0)
        if any(everyone[position] for position in positions):
            impacted = size
        elif key in union:
            impacted = int(weighted[environment][1][union[key]].sum())
        else:
            impacted = 0
        counts_by_type.append(store.RiskCount(environment, finding, len(positions), impacted,
                                              100.0 * impacted / size if size else 0.0))
    for key in {(row.domain_sid, row.finding) for row in rows} - set(groups):  # all accepted: a point at zero
        counts_by_type.append(store.RiskCount(key[0], key[1], 0, 0, 0.0))
    return counts_by_type


def _set_impact(row: store.FindingRow, count: int, size: int) -> None:
    row.impact_count = count
    row.impact_percentage = count / size if size else 0.0


def _describe(ctx: Context, candidates: list[Candidate]) -> list[store.FindingRow]:
    """The rows of the findings. Property documents are carried as the database's JSON text, never parsed: a
    finding of every computer without LAPS is some 20k documents at 100k objects."""
    nodes = {c.principal for c in candidates} | {c.target for c in candidates if c.target is not None}
    described: dict[int, tuple[str, str, str]] = {}
    if nodes:
        kind_names: dict[int, str] = dict(ctx.conn.execute("SELECT id, name FROM kind").fetchall())
        rows = ctx.conn.execute(
            "SELECT n.id, n.kind_ids, n.properties->>'objectid', n.properties::text FROM node n WHERE n.id = ANY(%s)",
            (sorted(nodes),),
        ).fetchall()
        for node, kind_ids, objectid, properties in rows:
            kinds = [kind_names[kind] for kind in kind_ids if kind_names[kind] != TIER_ZERO_TAG]
            described[node] = (str(node) if objectid is None else objectid, primary_kind(kinds), properties)
    edge_properties: dict[int, str] = {}
    edge_ids = sorted({c.edge_id for c in candidates if c.edge_id is not None})
    if edge_ids:
        edge_properties = dict(ctx.conn.execute("SELECT id, properties::text FROM edge WHERE id = ANY(%s)",
                                                (edge_ids,)).fetchall())
    result = []
    for candidate in candidates:
        principal, principal_kind, principal_props = described[candidate.principal]
        target = target_kind = target_props = rel_props = None
        if candidate.target is not None:
            target, target_kind, target_props = described[candidate.target]
        if candidate.edge_id is not None:
            rel_props = edge_properties.get(candidate.edge_id, "{}")
        result.append(store.FindingRow(
            finding=candidate.finding.name, domain_sid=candidate.environment,
            principal_hash=store.principal_hash(principal, target, candidate.rel_kind), principal=principal,
            principal_kind=principal_kind, principal_props=principal_props, target=target, target_kind=target_kind,
            target_props=target_props, rel_kind=candidate.rel_kind, rel_props=rel_props, edge_id=candidate.edge_id,
        ))
    return result


def _tier_zero(ctx: Context, environments: detect.Environments) -> dict[int, str]:
    """Tier Zero node -> its environment."""
    tag = ctx.kind_id(TIER_ZERO_TAG)
    if tag is None:
        return {}
    rows = ctx.conn.execute(f"SELECT n.id, {detect.ENVIRONMENT_SQL.format(n='n')} FROM node n "
                            "WHERE n.kind_ids @> ARRAY[%s]::smallint[]", (tag,))
    return {node: environments.resolve(raw) or "" for node, raw in rows}


def _eligible(ctx: Context, tier_zero: set[int]) -> dict[int, str]:
    """Eligible principal -> its environment (see the module docstring)."""
    ad, azure = ctx.kind_ids((ADNode.User, ADNode.Computer)), ctx.kind_ids((AZNode.User,))
    rows = ctx.conn.execute(
        "SELECT n.id, n.properties->>'domainsid' FROM node n WHERE n.kind_ids && %(ad)s::smallint[] "
        "AND n.properties->'enabled' = 'true'::jsonb AND n.properties ? 'domainsid' "
        "UNION ALL SELECT n.id, n.properties->>'tenantid' FROM node n WHERE n.kind_ids && %(azure)s::smallint[] "
        "AND n.properties->'enabled' IS DISTINCT FROM 'false'::jsonb AND n.properties ? 'tenantid'",
        {"ad": ad, "azure": azure},
    ).fetchall()  # the rows made at once: row by row, 770k of them cost 1.0 s of the cursor's Python at 1M objects
    return {node: str(environment) for node, environment in rows if node not in tier_zero}


def _environments(ctx: Context, environments: detect.Environments, nodes: list[int]) -> dict[int, str]:
    if not nodes:
        return {}
    rows = ctx.conn.execute(f"SELECT n.id, {detect.ENVIRONMENT_SQL.format(n='n')} FROM node n WHERE n.id = ANY(%s)",
                            (nodes,))
    resolved = {node: environments.resolve(raw) for node, raw in rows}
    return {node: environment for node, environment in resolved.items() if environment is not None}


def _tenants(ctx: Context) -> set[str]:
    """Every Azure tenant: with the collected AD domains, the environments that get a posture."""
    return {str(row[1]) for row in ctx.nodes(AZNode.Tenant, columns=("objectid",)) if row[1]}


def _traversable_edges(ctx: Context) -> tuple[Ids, Ids]:
    """`(starts, ends)` of every edge an attacker can move along (`graph.edge_ends`), int32 while node ids fit."""
    kinds = ctx.kind_ids({*AD_TRAVERSABLE_EDGES, *AZ_TRAVERSABLE_EDGES, *ctx.options.extension_traversable_edges})
    with ctx.conn.cursor(binary=True) as cursor:
        largest = cursor.execute(edge_ends.LARGEST_NODE_ID).fetchone()
        narrow = edge_ends.fits_narrow(largest and largest[0])
        texts = edge_ends.columns(cursor.execute(edge_ends.statement(narrow, " WHERE kind_id = ANY(%s)"),
                                                 (kinds,)).fetchone())
    starts, ends = edge_ends.decoded(texts, narrow, np.int32 if narrow else np.int64)
    return starts, ends


__all__ = ["Family", "FindingsReport", "accepted", "record", "repeat"]
