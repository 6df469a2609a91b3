"""HasTrustKeys: a domain holds the keys of its trust accounts in the domains it trusts outbound.

For a collected domain D with a `netbios` name and each outbound trust edge (SameForestTrust or
CrossForestTrust) D -> T to a Domain T whose SID is known: D -> the User of T whose `samaccountname`
is `<D's NetBIOS name>$` (the inter-domain trust account that holds the shared key).
"""

from __future__ import annotations

from houndgraph.analysis.context import Context
from houndgraph.analysis.rule import Derived, Rule
from houndgraph.graph.kinds import ADEdge, ADNode

_SQL = """
SELECT d.id, u.id
FROM node d
JOIN edge t ON t.start_id = d.id AND t.kind_id = ANY(%(trusts)s)
JOIN node td ON td.id = t.end_id AND td.kind_ids @> ARRAY[%(domain)s]::smallint[]
JOIN LATERAL (
    SELECT u.id FROM node u
    WHERE u.kind_ids @> ARRAY[%(user)s]::smallint[]
      AND u.properties->>'domainsid' = coalesce(td.properties->>'domainsid', td.properties->>'objectid')
      AND upper(u.properties->>'samaccountname') = upper(d.properties->>'netbios') || '$'
    ORDER BY u.id LIMIT 1
) u ON TRUE
WHERE d.id = ANY(%(domains)s) AND coalesce(d.properties->>'netbios', '') <> ''
"""


def compute(ctx: Context) -> Derived:
    domain_kind, user_kind = ctx.kind_id(ADNode.Domain), ctx.kind_id(ADNode.User)
    trusts = ctx.kind_ids((ADEdge.SameForestTrust, ADEdge.CrossForestTrust))
    domains = [domain for domain, _ in ctx.collected_domains]
    if domain_kind is None or user_kind is None or not trusts or not domains:
        return {ADEdge.HasTrustKeys: set()}
    rows = ctx.conn.execute(
        _SQL, {"trusts": trusts, "domain": domain_kind, "user": user_kind, "domains": domains}
    ).fetchall()
    return {ADEdge.HasTrustKeys: {(start, end) for start, end in rows}}


RULE = Rule("HasTrustKeys", (ADEdge.HasTrustKeys,), compute)
