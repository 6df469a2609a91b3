"""Tier Zero until privilege zones exist: the `Tag_Tier_Zero` kind, and one `Meta` node per domain / tenant.

Seeds, in our words after the reference's well-known Tier Zero rules (`TierZeroWellKnownSIDSuffixes`
plus the AdminSDHolder container): for every Domain node, the domain itself, the Groups and Users of
that domain (`domainsid`) whose object id ends with a well-known privileged RID or SID (Enterprise
Domain Controllers S-1-5-9, Administrator -500, Domain Admins -512, Domain Controllers -516, Schema
Admins -518, Enterprise Admins -519, Key Admins -526, Enterprise Key Admins -527, Administrators -544,
Backup Operators -551), and its AdminSDHolder container; for every AZTenant, the tenant and the holders
of Global Administrator and Privileged Role Administrator. Tier Zero is the seeds and every transitive
member of a seed group (MemberOf / AZMemberOf): control of a member is control of the group's rights.

Afterwards exactly these nodes carry `Tag_Tier_Zero` (the tag is added where missing and removed where
no longer earned). The `Meta` node of a domain or tenant (object id `META-<domain SID or tenant id>`,
kinds Meta plus the platform's base kind) stands for its Tier Zero: `name`, `metafor` (the domain's /
tenant's object id), `domainsid` or `tenantid`, and member counts `tierzero` (all), `tierzerousers`,
`tierzerogroups`, `tierzerocomputers`.
"""

from __future__ import annotations

from collections import defaultdict

import orjson

from houndgraph.analysis import azure_common
from houndgraph.analysis.context import Context
from houndgraph.analysis.protect_admin_groups import ADMIN_SD_HOLDER_DN_PREFIX
from houndgraph.graph.kinds import TIER_ZERO_TAG, ADNode, AZNode

WELL_KNOWN_SUFFIXES = ("-S-1-5-9", "-500", "-512", "-516", "-518", "-519", "-526", "-527", "-544", "-551")
META_PREFIX = "META-"

_WELL_KNOWN = """
SELECT n.id, n.properties->>'domainsid' FROM node n
WHERE n.kind_ids && %(kinds)s::smallint[]
  AND n.properties->>'domainsid' = ANY(%(sids)s)
  AND (""" + " OR ".join(f"n.properties->>'objectid' LIKE '%%{suffix}'" for suffix in WELL_KNOWN_SUFFIXES) + ")"


def refresh(ctx: Context) -> int:
    """Tag Tier Zero and refresh the Meta nodes; returns the number of Tier Zero nodes."""
    owner_of: dict[int, str] = {}  # seed -> domain SID / tenant id
    domains = {node: str(sid or objectid) for node, sid, objectid in ctx.nodes(
        ADNode.Domain, columns=("domainsid", "objectid")) if sid or objectid}
    for node, sid in domains.items():
        owner_of[node] = sid
    kinds = ctx.kind_ids((ADNode.Group, ADNode.User))
    if domains and kinds:
        for node, sid in ctx.conn.execute(_WELL_KNOWN, {"kinds": kinds, "sids": sorted(set(domains.values()))}):
            owner_of[node] = sid
    for sid in set(domains.values()):
        for node in ctx.node_ids(ADNode.Container, "upper(n.properties->>'distinguishedname') LIKE %(prefix)s "
                                 "AND n.properties->>'domainsid' = %(sid)s",
                                 {"prefix": ADMIN_SD_HOLDER_DN_PREFIX + "%", "sid": sid}):
            owner_of[node] = sid
    tenants = {}
    for tenant in azure_common.data(ctx).tenants:
        tenant_id = str(ctx.properties([tenant.id]).get(tenant.id, {}).get("objectid") or tenant.id)
        tenants[tenant.id] = tenant_id
        owner_of[tenant.id] = tenant_id
        for principal in tenant.principals_with(azure_common.GLOBAL_ADMINISTRATOR,
                                                azure_common.PRIVILEGED_ROLE_ADMINISTRATOR):
            owner_of.setdefault(principal, tenant_id)
    tier_zero: dict[int, str] = dict(owner_of)
    azure_membership = azure_common.data(ctx).membership
    for seed, owner in owner_of.items():
        for member in ctx.membership.members(seed) | azure_membership.members(seed):
            tier_zero.setdefault(member, owner)
    _tag(ctx, set(tier_zero))
    _meta(ctx, tier_zero, domains, tenants)
    return len(tier_zero)


def _tag(ctx: Context, members: set[int]) -> None:
    tag = ctx.catalogue.id(TIER_ZERO_TAG)
    ctx.conn.execute(
        "UPDATE node SET kind_ids = array_remove(kind_ids, %(tag)s) "
        "WHERE kind_ids @> ARRAY[%(tag)s]::smallint[] AND NOT id = ANY(%(members)s)",
        {"tag": tag, "members": sorted(members)},
    )
    ctx.conn.execute(
        "UPDATE node SET kind_ids = kind_ids || %(tag)s WHERE id = ANY(%(members)s) "
        "AND NOT kind_ids @> ARRAY[%(tag)s]::smallint[]",
        {"tag": tag, "members": sorted(members)},
    )


def _meta(ctx: Context, tier_zero: dict[int, str], domains: dict[int, str], tenants: dict[int, str]) -> None:
    kinds_of = {kind: set(ctx.has_kind(tier_zero, kind)) for kind in (ADNode.User, ADNode.Group, ADNode.Computer)}
    members: dict[str, set[int]] = defaultdict(set)
    for node, owner in tier_zero.items():
        members[owner].add(node)
    meta, ad_base, azure_base = ctx.catalogue.ids((ADNode.Meta, ADNode.Base, AZNode.Base))
    owners = [(node, owner, "domainsid") for node, owner in domains.items()]
    owners += [(node, owner, "tenantid") for node, owner in tenants.items()]
    names = {node: (properties.get("name") or properties.get("objectid") or "")
             for node, properties in ctx.properties([node for node, _, _ in owners]).items()}
    for node, owner, owner_key in owners:
        group = members[owner]
        properties = {
            "objectid": META_PREFIX + owner, "name": f"TIER ZERO@{names.get(node, owner)}", "metafor": owner,
            owner_key: owner, "tierzero": len(group), "lastseen": ctx.lastseen,
            **{f"tierzero{kind.lower()}s": len(group & found) for kind, found in kinds_of.items()},
        }
        # The platform's base kind makes the node part of that platform's data (e.g. a purge of AD data).
        base = ad_base if owner_key == "domainsid" else azure_base
        ctx.conn.execute(
            "INSERT INTO node (kind_ids, properties) VALUES (%(kinds)s::smallint[], %(properties)s::jsonb) "
            "ON CONFLICT ((properties->>'objectid')) DO UPDATE SET properties = EXCLUDED.properties",
            {"kinds": [meta, base], "properties": orjson.dumps(properties).decode()},
        )
    # A Meta node whose domain or tenant is gone goes with it.
    ctx.conn.execute(
        "DELETE FROM node WHERE kind_ids @> ARRAY[%(meta)s]::smallint[] "
        "AND NOT properties->>'objectid' = ANY(%(keep)s)",
        {"meta": meta, "keep": [META_PREFIX + owner for _, owner, _ in owners]},
    )
