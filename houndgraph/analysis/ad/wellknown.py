"""Before the rules: well-known groups get the Group kind and are linked as Windows nests them.

Reference `FixWellKnownNodeTypes` and `LinkWellKnownNodes`, in our words:
* A node whose object id ends with a privileged well-known group RID (Domain Admins, Enterprise
  Admins, Administrators, ...) and carries neither Group nor ADLocalGroup gets the Group kind (a
  collector sometimes knows such a SID only from an ACE, without its type).
* For each collected domain with a name: Everyone (`<DOMAIN NAME>-S-1-1-0`), Authenticated Users
  (`<DOMAIN NAME>-S-1-5-11`), Domain Users (`<SID>-513`) and Domain Computers (`<SID>-515`) exist as
  Group nodes (created bare when missing), and Domain Users -> Authenticated Users, Domain Computers ->
  Authenticated Users, Authenticated Users -> Everyone and Guest (`<SID>-501`, when collected) ->
  Everyone are MemberOf edges. Rules rely on this nesting (e.g. a group containing Domain Users
  grants a right to everybody, see `membership`).
The special identities the reference also creates (Network, This Organization, ...) only feed
ClaimSpecialIdentity, which no rule here reads; they are not created.
"""

from __future__ import annotations

import orjson

from houndgraph.analysis.context import AUTHENTICATED_USERS_SUFFIX, EVERYONE_SUFFIX, Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import ADEdge, ADNode
from houndgraph.graph.store.edges import StagedEdge, upsert_edges

# RIDs / SIDs the reference makes sure are groups.
WELL_KNOWN_GROUP_SUFFIXES = ("-527", "-526", "-S-1-5-9", "-512", "-516", "-518", "-519", "-544", "-551")
DOMAIN_USERS_RID = "-513"
DOMAIN_COMPUTERS_RID = "-515"
GUEST_RID = "-501"

_FIX_KINDS = """
UPDATE node SET kind_ids = kind_ids || %(group)s::smallint
WHERE (right(properties->>'objectid', 4) = ANY(%(suffixes)s) OR properties->>'objectid' LIKE '%%-S-1-5-9')
  AND NOT kind_ids && %(groups)s::smallint[]
"""


def compute(ctx: Context) -> Derived:
    group, base = ctx.catalogue.ids((ADNode.Group, ADNode.Base))
    local_group = ctx.kind_id(ADNode.LocalGroup)
    groups = [group] + ([local_group] if local_group is not None else [])
    suffixes = [suffix for suffix in WELL_KNOWN_GROUP_SUFFIXES if len(suffix) == 4]
    ctx.conn.execute(_FIX_KINDS, {"group": group, "suffixes": suffixes, "groups": groups})
    member_of = ctx.catalogue.id(ADEdge.MemberOf)
    link_properties = orjson.dumps({"lastseen": ctx.lastseen}).decode()
    # Keyed by (start, end): two domains of one name share their Everyone and Authenticated Users nodes.
    links: dict[tuple[int, int], StagedEdge] = {}
    for domain, sid in ctx.collected_domains:
        row = ctx.conn.execute("SELECT properties->>'name' FROM node WHERE id = %s", (domain,)).fetchone()
        name = (row[0] or "").upper() if row else ""
        if not name:
            continue

        def ensure(objectid: str, label: str, *, sid: str = sid, name: str = name) -> int:
            found = ctx.conn.execute(
                "SELECT id, kind_ids @> ARRAY[%s]::smallint[] FROM node WHERE properties->>'objectid' = %s",
                (group, objectid),
            ).fetchone()
            if found is not None:
                if not found[1]:
                    ctx.conn.execute("UPDATE node SET kind_ids = kind_ids || %s::smallint WHERE id = %s",
                                     (group, found[0]))
                return int(found[0])
            properties = {"objectid": objectid, "name": f"{label}@{name}", "domainsid": sid, "domain": name,
                          "lastseen": ctx.lastseen}
            created = ctx.conn.execute(
                "INSERT INTO node (kind_ids, properties) VALUES (%s, %s::jsonb) RETURNING id",
                ([group, base], orjson.dumps(properties).decode()),
            ).fetchone()
            assert created is not None
            return int(created[0])

        everyone = ensure(f"{name}-{EVERYONE_SUFFIX}", "EVERYONE")
        authenticated = ensure(f"{name}-{AUTHENTICATED_USERS_SUFFIX}", "AUTHENTICATED USERS")
        domain_users = ensure(sid + DOMAIN_USERS_RID, "DOMAIN USERS")
        domain_computers = ensure(sid + DOMAIN_COMPUTERS_RID, "DOMAIN COMPUTERS")
        pairs = [(domain_users, authenticated), (domain_computers, authenticated), (authenticated, everyone)]
        guest = ctx.conn.execute(
            "SELECT id FROM node WHERE properties->>'objectid' = %s", (sid + GUEST_RID,)
        ).fetchone()
        if guest:
            pairs.append((guest[0], everyone))
        links.update({(start, end): (start, end, member_of, link_properties) for start, end in pairs})
    if links:
        upsert_edges(ctx.conn, links.values())
        ctx.wrote_edges(ADEdge.MemberOf)
    # The membership snapshot and the shortcut groups may have been read before these writes.
    ctx.__dict__.pop("membership", None)
    ctx.__dict__.pop("shortcut_groups", None)
    return {}


RULE = Rule("WellKnownNodes", (), compute)
