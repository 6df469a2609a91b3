"""SyncedToADUser / SyncedToEntraUser: an Entra user synchronised from on-premises AD and its AD user.

Reference `PostHybrid`, in our words: for each AZUser a tenant contains with `onpremsyncenabled = true`
and a non-empty `onpremid` (the on-premises SID): the node with that object id (a bare AD User with only
the object id is created when the AD side was not collected) -> SyncedToEntraUser -> the AZUser, and
the AZUser -> SyncedToADUser -> it.
"""

from __future__ import annotations

import orjson

from houndgraph.analysis.azure import common as azure_common
from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import ADEdge, ADNode, AZEdge, AZNode


def compute(ctx: Context) -> Derived:
    data = azure_common.data(ctx)
    synced: dict[int, str] = {}
    for tenant in data.tenants:
        for user in tenant.of(AZNode.User):
            properties = data.properties.get(user, {})
            onprem = properties.get("onpremid")
            if properties.get("onpremsyncenabled") is True and isinstance(onprem, str) and onprem:
                synced[user] = onprem.upper()
    to_ad: set[tuple[int, int]] = set()
    to_entra: set[tuple[int, int]] = set()
    if synced:
        found: dict[str, int] = dict(ctx.conn.execute(
            "SELECT properties->>'objectid', id FROM node WHERE properties->>'objectid' = ANY(%s)",
            (sorted(set(synced.values())),),
        ).fetchall())
        user_kinds = ctx.catalogue.ids((ADNode.User, ADNode.Base))
        for objectid in sorted(set(synced.values()) - found.keys()):
            row = ctx.conn.execute(
                "INSERT INTO node (kind_ids, properties) VALUES (%s, %s::jsonb) RETURNING id",
                (user_kinds, orjson.dumps({"objectid": objectid, "lastseen": ctx.lastseen}).decode()),
            ).fetchone()
            assert row is not None
            found[objectid] = row[0]
        for azure_user, objectid in synced.items():
            to_ad.add((azure_user, found[objectid]))
            to_entra.add((found[objectid], azure_user))
    return {AZEdge.SyncedToADUser: to_ad, ADEdge.SyncedToEntraUser: to_entra}


RULE = Rule("Hybrid", (AZEdge.SyncedToADUser, ADEdge.SyncedToEntraUser), compute)
