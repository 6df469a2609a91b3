"""The data-quality snapshot written at the end of every analysis run (reference `SaveDataQuality`).

AD: one row per Domain node (its `objectid` is the domain SID): the nodes of each AD kind whose
`domainsid` is that SID; `relationships`, the edges starting at an AD node (Base kind) of the domain;
`acls`, those of an ACL kind; `sessions`, HasSession edges starting at a Computer of the domain; and the
two completeness fractions restricted to the domain. One aggregate row sums the counters over the
domains, adds `domains`, and computes completeness over all domains. Azure: one row per AZTenant
(`tenantid` match, no ACL / session / completeness figures) and an aggregate with `tenants`. Every row
of a run shares one freshly generated `run_id` and the run's time; nothing is written for a platform
without domains / tenants.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from datetime import datetime

from houndgraph.analysis.completeness import local_group_completeness, session_completeness
from houndgraph.analysis.context import Context
from houndgraph.graph.kinds import AD_ACL_EDGES, ADEdge, ADNode, AZNode

AD_COUNTED_KINDS: dict[str, str] = {
    "users": ADNode.User, "groups": ADNode.Group, "computers": ADNode.Computer, "ous": ADNode.OU,
    "containers": ADNode.Container, "gpos": ADNode.GPO, "aiacas": ADNode.AIACA, "rootcas": ADNode.RootCA,
    "enterprisecas": ADNode.EnterpriseCA, "ntauthstores": ADNode.NTAuthStore,
    "certtemplates": ADNode.CertTemplate, "issuancepolicies": ADNode.IssuancePolicy, "sites": ADNode.Site,
    "siteservers": ADNode.SiteServer, "sitesubnets": ADNode.SiteSubnet,
}
AZURE_COUNTED_KINDS: dict[str, str] = {
    "users": AZNode.User, "groups": AZNode.Group, "apps": AZNode.App, "service_principals": AZNode.ServicePrincipal,
    "devices": AZNode.Device, "management_groups": AZNode.ManagementGroup, "subscriptions": AZNode.Subscription,
    "resource_groups": AZNode.ResourceGroup, "vms": AZNode.VM, "key_vaults": AZNode.KeyVault,
    "automation_accounts": AZNode.AutomationAccount, "container_registries": AZNode.ContainerRegistry,
    "function_apps": AZNode.FunctionApp, "logic_apps": AZNode.LogicApp, "managed_clusters": AZNode.ManagedCluster,
    "vm_scale_sets": AZNode.VMScaleSet, "web_apps": AZNode.WebApp,
}

_NODES_BY_OWNER = """
SELECT n.properties->>%(owner)s, k.name, count(*)
FROM node n JOIN kind k ON k.id = ANY(n.kind_ids)
WHERE k.name = ANY(%(kinds)s) AND n.properties->>%(owner)s = ANY(%(owners)s)
GROUP BY 1, 2
"""
# Kinds by id, not looked up in the statement: the planner then knows how many start nodes match. The owners' nodes
# are cut down to (id, owner's position in the list, whether a computer) before the join: joined whole, each
# node's properties went into the hash table (650 bytes a row; at a million objects it spilled to 128 batches and
# sorted 6M joined rows on disk, 7-12 s). Grouped by the position rather than the owner's text.
_EDGES_BY_OWNER = """
WITH owned AS MATERIALIZED (
    SELECT id, array_position(%(owners)s::text[], properties->>%(owner)s) AS owner,
           kind_ids @> ARRAY[%(computer)s]::smallint[] AS computer
    FROM node WHERE kind_ids @> ARRAY[%(base)s]::smallint[] AND properties->>%(owner)s = ANY(%(owners)s)
)
SELECT o.owner, count(*),
       count(*) FILTER (WHERE e.kind_id = ANY(%(acls)s::smallint[])),
       count(*) FILTER (WHERE e.kind_id = %(session)s AND o.computer)
FROM owned o JOIN edge e ON e.start_id = o.id
GROUP BY 1
"""
# The join's hash table of the owners' nodes, some 40 bytes a node, held in memory (4MB, the default, spilled it to
# disk in 8 batches at a million objects, and the whole edge table with it: 6.7 s against 4.2 s).
_JOIN_WORK_MEM = "64MB"


def _owners(ctx: Context, kind: str, column: str) -> list[str]:
    return sorted({str(row[1] or row[2]) for row in ctx.nodes(kind, columns=(column, "objectid")) if row[1] or row[2]})


def _counts(ctx: Context, owner: str, owners: list[str], kinds: dict[str, str], base: str) -> dict[str, dict[str, int]]:
    by_kind = {kind: column for column, kind in kinds.items()}
    columns = [*kinds, "relationships", "acls", "sessions"]
    counts: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(columns, 0))
    rows = ctx.conn.execute(_NODES_BY_OWNER, {"owner": owner, "kinds": list(by_kind), "owners": owners})
    for sid, kind, count in rows:
        counts[sid][by_kind[kind]] = count
    base_id = ctx.kind_id(base)
    edges = []
    if base_id is not None:
        with ctx.work_mem(_JOIN_WORK_MEM):
            edges = ctx.conn.execute(_EDGES_BY_OWNER, {
                "owner": owner, "owners": owners, "acls": ctx.kind_ids(sorted(AD_ACL_EDGES)),
                "session": ctx.kind_id(ADEdge.HasSession) or -1, "computer": ctx.kind_id(ADNode.Computer) or -1,
                "base": base_id,
            }).fetchall()
    for position, relationships, acls, sessions in edges:
        counts[owners[position - 1]].update(relationships=relationships, acls=acls, sessions=sessions)
    return {sid: counts[sid] for sid in owners}


def record_snapshot(ctx: Context) -> str | None:
    """Write the run's rows; returns the run id, or None when there was nothing to describe."""
    run_id = str(uuid.uuid4())
    wrote = _record_ad(ctx, run_id)
    wrote = _record_azure(ctx, run_id) or wrote
    return run_id if wrote else None


_COMPLETENESS = ["session_completeness", "local_group_completeness"]
_AD_COUNTERS = [*AD_COUNTED_KINDS, "acls", "sessions", "relationships"]
_AZURE_COUNTERS = [*AZURE_COUNTED_KINDS, "relationships"]
# Each table of a snapshot, with the columns a repeated snapshot copies.
SNAPSHOT_COLUMNS = {
    "ad_data_quality_stats": ["domain_sid", *_AD_COUNTERS, *_COMPLETENESS],
    "ad_data_quality_aggregations": ["domains", *_AD_COUNTERS, *_COMPLETENESS],
    "azure_data_quality_stats": ["tenant_id", *_AZURE_COUNTERS],
    "azure_data_quality_aggregations": ["tenants", *_AZURE_COUNTERS],
}


def repeat_snapshot(ctx: Context, previous_run_at: datetime) -> str | None:
    """The rows of the run at `previous_run_at` again, under a new run id and this run's time: for a run that
    found the graph unchanged since then (zone tags aside, which the snapshot does not count). Falls back to a
    full snapshot when that run's rows are gone (their history was deleted)."""
    run_id = str(uuid.uuid4())
    copied = 0
    for table, columns in SNAPSHOT_COLUMNS.items():
        listed = ", ".join(columns)
        copied += ctx.conn.execute(
            f"INSERT INTO {table} ({listed}, run_id, created_at, updated_at) "
            f"SELECT {listed}, %(run)s, %(now)s, %(now)s FROM {table} "
            "WHERE created_at = %(previous)s AND deleted_at IS NULL",
            {"run": run_id, "now": ctx.now, "previous": previous_run_at},
        ).rowcount
    return run_id if copied else record_snapshot(ctx)


def _insert(ctx: Context, table: str, values: dict[str, object]) -> None:
    columns = list(values)
    ctx.conn.execute(
        f"INSERT INTO {table} ({', '.join(columns)}, created_at, updated_at) "
        f"VALUES ({', '.join(f'%({c})s' for c in columns)}, %(now)s, %(now)s)",
        {**values, "now": ctx.now},
    )


def _record_ad(ctx: Context, run_id: str) -> bool:
    domains = _owners(ctx, ADNode.Domain, "domainsid")
    if not domains:
        return False
    counts = _counts(ctx, "domainsid", domains, AD_COUNTED_KINDS, ADNode.Base)
    sessions = session_completeness(ctx.conn, ctx.kind_id, domains)
    local_groups = local_group_completeness(ctx.conn, ctx.kind_id, domains)
    columns = _AD_COUNTERS
    totals = dict.fromkeys(columns, 0)
    for sid in domains:
        row = {column: counts[sid][column] for column in columns}
        for column in columns:
            totals[column] += row[column]
        _insert(ctx, "ad_data_quality_stats", {
            "domain_sid": sid, **row, "run_id": run_id,
            "session_completeness": sessions.of(sid), "local_group_completeness": local_groups.of(sid),
        })
    _insert(ctx, "ad_data_quality_aggregations", {
        "domains": len(domains), **totals, "run_id": run_id,
        "session_completeness": sessions.graph, "local_group_completeness": local_groups.graph,
    })
    return True


def _record_azure(ctx: Context, run_id: str) -> bool:
    tenants = _owners(ctx, AZNode.Tenant, "tenantid")
    if not tenants:
        return False
    counts = _counts(ctx, "tenantid", tenants, AZURE_COUNTED_KINDS, AZNode.Base)
    columns = _AZURE_COUNTERS
    totals = dict.fromkeys(columns, 0)
    for tenant in tenants:
        row = {column: counts[tenant][column] for column in columns}
        for column in columns:
            totals[column] += row[column]
        _insert(ctx, "azure_data_quality_stats", {"tenant_id": tenant, **row, "run_id": run_id})
    _insert(ctx, "azure_data_quality_aggregations", {"tenants": len(tenants), **totals, "run_id": run_id})
    return True
