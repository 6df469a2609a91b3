"""One `Meta` node per domain and tenant standing for its Tier Zero, refreshed after zone tagging.

Object id `META-<domain SID or tenant id>`, kinds Meta plus the platform's base kind; `name`, `metafor`
(the domain's / tenant's object id), `domainsid` or `tenantid`, and the counts of its Tier Zero members:
`tierzero` (all), `tierzerousers`, `tierzerogroups`, `tierzerocomputers`. A member belongs to the domain
of its `domainsid`, or to the tenant of its `tenantid` (a domain or tenant object: its own object id).
"""

from __future__ import annotations

from collections import defaultdict

import orjson

from houndgraph.analysis.context import Context
from houndgraph.graph.kinds import TIER_ZERO_TAG, ADNode, AZNode

META_PREFIX = "META-"
COUNTED = {ADNode.User: "tierzerousers", ADNode.Group: "tierzerogroups", ADNode.Computer: "tierzerocomputers"}


def refresh(ctx: Context) -> None:
    domains = {str(sid or objectid): name for _, sid, objectid, name in ctx.nodes(
        ADNode.Domain, columns=("domainsid", "objectid", "name")) if sid or objectid}
    tenants = {str(tenant or objectid): name for _, tenant, objectid, name in ctx.nodes(
        AZNode.Tenant, columns=("tenantid", "objectid", "name")) if tenant or objectid}
    counted = {ctx.kind_id(kind): key for kind, key in COUNTED.items()}
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    tag = ctx.kind_id(TIER_ZERO_TAG)
    if tag is not None:
        rows = ctx.conn.execute(
            "SELECT coalesce(CASE WHEN kind_ids && %s::smallint[] THEN properties->>'objectid' END, "
            "properties->>'domainsid', properties->>'tenantid'), kind_ids FROM node "
            "WHERE kind_ids @> ARRAY[%s]::smallint[]", (ctx.kind_ids((ADNode.Domain, AZNode.Tenant)), tag))
        for owner, kind_ids in rows:
            if owner is None:
                continue
            counts[owner]["tierzero"] += 1
            for kind_id in kind_ids:
                if kind_id in counted:
                    counts[owner][counted[kind_id]] += 1
    meta, ad_base, azure_base = ctx.catalogue.ids((ADNode.Meta, ADNode.Base, AZNode.Base))
    owners = [(owner, name, "domainsid", ad_base) for owner, name in domains.items()]
    owners += [(owner, name, "tenantid", azure_base) for owner, name in tenants.items()]
    for owner, name, owner_key, base in owners:
        found = counts.get(owner, {})
        properties = {
            "objectid": META_PREFIX + owner, "name": f"TIER ZERO@{name or owner}", "metafor": owner,
            owner_key: owner, "tierzero": found.get("tierzero", 0), "lastseen": ctx.lastseen,
            **{key: found.get(key, 0) for key in COUNTED.values()},
        }
        # The platform's base kind makes the node part of that platform's data (e.g. a purge of AD data).
        ctx.conn.execute(
            "INSERT INTO node (kind_ids, properties) VALUES (%(kinds)s::smallint[], %(properties)s::jsonb) "
            "ON CONFLICT ((properties->>'objectid')) DO UPDATE SET properties = EXCLUDED.properties",
            {"kinds": [meta, base], "properties": orjson.dumps(properties).decode()},
        )
    # A Meta node whose domain or tenant is gone goes with it.
    ctx.conn.execute(
        "DELETE FROM node WHERE kind_ids @> ARRAY[%(meta)s]::smallint[] "
        "AND NOT properties->>'objectid' = ANY(%(keep)s)",
        {"meta": meta, "keep": [META_PREFIX + owner for owner, _, _, _ in owners]},
    )
