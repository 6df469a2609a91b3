"""Community query libraries (SpecterOps BloodHoundQueryLibrary, CompassSecurity BloodHoundQueries),
run unchanged over the drawn graph of library_graph.py; answers from its plain-Python model."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import pytest

from houndgraph.db import Database
from houndgraph.graph.cypher.errors import PARAMETERS_NOT_SUPPORTED, CypherError
from houndgraph.graph.cypher.execute import Result
from houndgraph.graph.cypher.parser import parse
from houndgraph.graph.kinds import AD_TRAVERSABLE_EDGES
from tests.graph.cypher.library_graph import NODES
from tests.graph.cypher.test_library import M, check, edge_paths, ends, everyone, first, library, names, path_names

__all__ = ["library"]  # the module fixture that loads the graph

DAY = 86400
NOW = time.time()
ADMIN_GROUP_RIDS = ("-512", "-548", "-544", "-551", "-516", "-519", "-527", "-526", "-550", "-521", "-552", "-518",
                    "-549")
KEYWORDS = ["admin", "amministratore", "empfindlich", "geheim", "important", "azure", "MSOL", "kennwort", "pass",
            "secret", "sensib", "sensitiv"]


def older_than(value: Any, days: int) -> bool:
    return isinstance(value, int | float) and value < NOW - days * DAY


def member_closure(group_suffix: str) -> set[str]:
    """Nodes with a MemberOf walk of 0 or more hops to a group whose objectid ends with the suffix."""
    return {k for k in NODES for t in M.trails(k, ["MemberOf"], low=0) if M.rid(t[-1], group_suffix)
            and "Group" in M.kinds[t[-1]]}


PROTECTED = {k for k in NODES for t in M.trails(k, ["MemberOf"]) if M.rid(t[-1], "-525")}
COMMUNITY: list[tuple[str, Callable[[Result], Any], Any]] = [
    # --- SpecterOps BloodHoundQueryLibrary
    ("MATCH (n:Base)\nWHERE n.unconstraineddelegation = true\n\n// The query excludes all Tier Zero objects by "
     "default\n// Exclude only DCs by removing the line below and uncomment the 'NOT n.isdc' line after\n"
     "AND NOT (n:Tag_Tier_Zero)\n//AND NOT n.isdc = true\n\nRETURN n", first,
     names(n for n in NODES if "Base" in M.kinds[n] and M.p(n, "unconstraineddelegation") is True
           and not M.tier_zero(n))),
    ("MATCH (m:Base)\nWHERE (m:Tag_Tier_Zero)\nAND m.enabled = true\nAND m.sensitive = false\nOPTIONAL MATCH "
     "(g:Group)<-[:MemberOf*1..]-(n:Base)\nWHERE g.objectid ENDS WITH '-525'\nWITH m, COLLECT(n) AS matchingNs\n"
     "WHERE NONE(n IN matchingNs WHERE n.objectid = m.objectid)\nRETURN m", first,
     names(m for m in NODES if "Base" in M.kinds[m] and M.tier_zero(m) and M.p(m, "enabled") is True
           and M.p(m, "sensitive") is False and m not in PROTECTED)),
    ("MATCH p = (s:Computer)-[:MemberOf*0..]->()-[:AdminTo]->(d:Computer)\nWHERE s <> d\nRETURN p\nLIMIT 1000", first,
     path_names([*t, d] for s in M.of("Computer") for t in M.trails(s, ["MemberOf"], low=0)
                for d in M.out(t[-1], ["AdminTo"]) if "Computer" in M.kinds[d] and d != s)),
    ("MATCH p=(m)-[:MemberOf*1..]->(g)-[:ReadGMSAPassword]->()\nRETURN p", first,
     path_names([*t, x] for m in NODES for t in M.trails(m, ["MemberOf"]) for x in M.out(t[-1], ["ReadGMSAPassword"]))),
    ("MATCH (d:Domain)-[:Contains*1..]->(n:Base)\nWHERE (n:Tag_Tier_Zero)\nWITH d, COUNT(n) AS adminCount\n"
     "WHERE adminCount > 50\nRETURN d", first, set()),
    ("MATCH (n:Computer)\nWHERE n.enabled = true\nAND n.whencreated < (datetime().epochseconds - (60 * 3 * 86400))\n"
     "AND n.pwdlastset < (datetime().epochseconds - (60 * 3 * 86400))\nAND (n:Tag_Tier_Zero)\nRETURN n", first,
     names(c for c in M.of("Computer") if M.p(c, "enabled") is True and older_than(M.p(c, "whencreated"), 180)
           and older_than(M.p(c, "pwdlastset"), 180) and M.tier_zero(c))),
    ("MATCH p = (m:Base)-[:AllowedToAct]->(n:Computer)\nWHERE NOT (n:Tag_Tier_Zero)\nRETURN p", first,
     edge_paths(["AllowedToAct"], lambda s, e: "Computer" in M.kinds[e] and not M.tier_zero(e))),
    ("MATCH (m:AZBase)-[:AZHasRole|AZRoleEligible]->(r:AZRole)\nWHERE (r:Tag_Tier_Zero) // Tier Zero roles\n"
     "WITH r, COUNT(m) AS memberCount\nWHERE memberCount > 10 // more than 10 members assigned to a single Tier Zero "
     "role\nRETURN r", first, set()),
    ("MATCH p = shortestPath((n:AZUser)-[*..]->(g:AZKeyVault))\nRETURN p", ends,
     M.shortest(M.of("AZUser"), M.of("AZKeyVault"), {k for _, k, _ in M.edges})),
    ("MATCH (n:Base)\nWHERE n.hasspn = true\nAND ANY(encryption_type IN n.supportedencryptiontypes WHERE "
     "encryption_type CONTAINS 'RC4') // RC4 explicitly permitted\nRETURN n\nLIMIT 100", first,
     names(n for n in NODES if M.p(n, "hasspn") is True and any("RC4" in e for e in M.p(n, "supportedencryptiontypes")
                                                                or []))),
    ("MATCH p=(n:Base)-[:ReadLAPSPassword|AllExtendedRights|GenericAll|SyncLAPSPassword]->(c:Computer)\nWHERE "
     "c.haslaps = true\nAND c.enabled = true\nAND NOT (n:Tag_Tier_Zero)\nRETURN p\nLIMIT 1000", first,
     edge_paths(["ReadLAPSPassword", "AllExtendedRights", "GenericAll", "SyncLAPSPassword"],
                lambda s, e: "Computer" in M.kinds[e] and M.p(e, "haslaps") is True and M.p(e, "enabled") is True
                and not M.tier_zero(s))),
    ("MATCH p=(t:Group)<-[:MemberOf*..]-(s:Group)\nWHERE (t:Tag_Tier_Zero)\nAND NOT s.objectid ENDS WITH '-512' // "
     "Domain Admins\nAND NOT s.objectid ENDS WITH '-519' // Enterprise Admins\nRETURN p\nLIMIT 1000", first,
     path_names(t for g in M.of("Group") if M.tier_zero(g) for t in M.trails(g, ["MemberOf"], reverse=True)
                if "Group" in M.kinds[t[-1]] and not M.rid(t[-1], "-512") and not M.rid(t[-1], "-519"))),
    ("MATCH p=shortestPath((s:Base)-[:AD_ATTACK_PATHS*1..]->(t:Base))\nWHERE (s:Tag_Owned)\nAND s<>t\nRETURN p\n"
     "LIMIT 1000", ends, M.shortest([n for n in NODES if "Tag_Owned" in M.kinds[n] and "Base" in M.kinds[n]],
                                    [n for n in NODES if "Base" in M.kinds[n]], AD_TRAVERSABLE_EDGES)),
    ("MATCH p = (t:Group)<-[:MemberOf*1..]-(a:Computer)\nWHERE t.objectid ENDS WITH '-516'\nRETURN p\nLIMIT 1000",
     first, path_names(t for g in M.of("Group") if M.rid(g, "-516") for t in M.trails(g, ["MemberOf"], reverse=True)
                       if "Computer" in M.kinds[t[-1]])),
    ("MATCH (n:Base)\nWHERE (n:Tag_Tier_Zero)\nAND n.enabled = false\nAND NOT n.objectid ENDS WITH '-502' // Removes "
     "false positive, KRBTGT\nAND NOT n.objectid ENDS WITH '-500' // Removes false positive, built-in Administrator\n"
     "RETURN n\nLIMIT 100", first, set()),
    ("WITH 60 as inactive_days\nMATCH (n:Base)\nWHERE (n:Tag_Tier_Zero)\nAND n.enabled = true\nAND "
     "n.lastlogontimestamp < (datetime().epochseconds - (inactive_days * 86400)) // Replicated value\nAND n.lastlogon "
     "< (datetime().epochseconds - (inactive_days * 86400)) // Non-replicated value\nAND n.whencreated < "
     "(datetime().epochseconds - (inactive_days * 86400)) // Exclude recently created principals\nAND NOT n.name "
     "STARTS WITH 'AZUREADKERBEROS.' // Removes false positive, Azure KRBTGT\nAND NOT n.objectid ENDS WITH '-500' // "
     "Removes false positive, built-in Administrator\nAND NOT n.name STARTS WITH 'AZUREADSSOACC.' // Removes false "
     "positive, Entra Seamless SSO\nRETURN n", first,
     names(n for n in NODES if "Base" in M.kinds[n] and M.tier_zero(n) and M.p(n, "enabled") is True
           and all(older_than(M.p(n, key), 60) for key in ("lastlogontimestamp", "lastlogon", "whencreated")))),
    ("MATCH p = (t:Base)<-[:Contains*1..]-(:Domain)\nWHERE (t:Tag_Owned)\nRETURN p\nLIMIT 1000", first,
     path_names(t[::-1] for d in M.of("Domain") for t in M.trails(d, ["Contains"])
                if "Tag_Owned" in M.kinds[t[-1]] and "Base" in M.kinds[t[-1]])),
    ("MATCH (n:Base)\nWHERE (n:User OR n:Computer)\nAND n.admincount = true\nAND NOT (n:Tag_Tier_Zero)\nAND NOT "
     "n.objectid ENDS WITH '-502' // KRBTGT user\nAND NOT n.objectid ENDS WITH '-500' // Administrator user\n"
     "OPTIONAL MATCH (n)-[:MemberOf]->(g:Group)\nWHERE " + "\nOR ".join(
         f"g.objectid ENDS WITH '{rid}'" for rid in ADMIN_GROUP_RIDS) + "\nWITH n, g\nWHERE g IS NULL\nRETURN n", first,
     names(n for n in NODES if ("User" in M.kinds[n] or "Computer" in M.kinds[n]) and M.p(n, "admincount") is True
           and not M.tier_zero(n) and not any(M.rid(g, r) for g in M.out(n, ["MemberOf"]) for r in ADMIN_GROUP_RIDS))),
    ("MATCH p=(n:Base)-[:AddKeyCredentialLink]->(m:Base)\nWHERE (n:User or n:Computer)\nAND (m:Tag_Tier_Zero)\n"
     "RETURN p\nLIMIT 1000", first, edge_paths(["AddKeyCredentialLink"], lambda s, e: M.tier_zero(e))),
    ("// MANY TO MANY SHORTEST PATH QUERIES USE EXCESSIVE SYSTEM RESOURCES AND TYPICALLY WILL NOT COMPLETE\nMATCH "
     "p=shortestPath((s:User)-[:AD_ATTACK_PATHS*1..]->(t:Base))\nWHERE s<>t\nAND NOT (s:Tag_Tier_Zero)\nAND "
     "(t:Tag_Tier_Zero)\nRETURN p\nLIMIT 1000", ends,
     M.shortest([u for u in M.of("User") if not M.tier_zero(u)], [n for n in NODES if M.tier_zero(n)
                                                                  and "Base" in M.kinds[n]], AD_TRAVERSABLE_EDGES)),
    ("MATCH p = (n)-[r]->(g:AZVM) \nRETURN p", first,
     path_names([s, e] for s, _, e in M.edges if "AZVM" in M.kinds[e])),
    # --- CompassSecurity BloodHoundQueries (the ones without a `$result` parameter)
    ("MATCH (d:Domain) RETURN d", first, names(M.of("Domain"))),
    ('MATCH (n:Group) WHERE n.objectid ENDS WITH "-516" RETURN n.name ORDER BY n.name DESC', first,
     names(g for g in M.of("Group") if M.rid(g, "-516"))),
    ("MATCH (n:Domain) RETURN n.name ORDER BY n.name DESC", first, names(M.of("Domain"))),
    ("MATCH p = (d:Domain)-[r:Contains*1..]->(o {owned: true}) RETURN p", first,
     path_names(t for d in M.of("Domain") for t in M.trails(d, ["Contains"]) if M.p(t[-1], "owned") is True)),
    ("UNWIND " + repr(KEYWORDS) + " AS word MATCH (n) WHERE (toLower(n.name) CONTAINS toLower(word)) OR "
     "(toLower(n.description) CONTAINS toLower(word)) RETURN n", first,
     names(n for n in NODES for w in KEYWORDS if w.lower() in M.name(n).lower()
           or w.lower() in str(M.p(n, "description") or "").lower())),
    ("MATCH (u1:User),(u2:User) WHERE split(u1.name,'@')[0] = split(u2.name,'@')[0] AND u1.domain <> u2.domain AND "
     "tointeger(split(u1.objectid,'-')[7]) >= 1000 RETURN u1", first,
     names(a for a in M.of("User") for b in M.of("User") if M.name(a).split("@")[0] == M.name(b).split("@")[0]
           and M.p(a, "domain") != M.p(b, "domain") and int(M.p(a, "objectid").split("-")[7]) >= 1000)),
    ("MATCH p=(m)-[r:AllowedToAct]->(n) RETURN p", first, edge_paths(["AllowedToAct"])),
    # --- BloodHound's "Kerberoastable users" with the objectid shown, and the "all shortest paths" of the UI
    ("MATCH p=allShortestPaths((u:User {name: 'DAVE@LAB.LOCAL'})-[:AD_ATTACK_PATHS*1..]->(g:Group)) "
     "WHERE g.objectid ENDS WITH '-512' RETURN p", ends, M.shortest(["dave"], ["da"], AD_TRAVERSABLE_EDGES)),
]
# Queries of these libraries that take a parameter filled in by the legacy UI: refused, as the
# reference refuses them (reference/behaviour.md §1).
PARAMETERISED = [
    "MATCH p=(c:Computer)-[:MemberOf*1..]->(n:Group {name: $result}) RETURN p",
    "MATCH p = (d:Domain {name: $result})-[r:Contains*1..]->(h {highvalue: true}) RETURN p",
    "MATCH p=(u {domain: $result})-[r:AdminTo]->(c:Computer) RETURN p",
]


@pytest.mark.parametrize(("query", "read", "expected"), COMMUNITY,
                         ids=[f"community{i:02}" for i in range(len(COMMUNITY))])
def test_community_query(library: Database, query: str, read: Callable[[Result], Any], expected: Any) -> None:
    check(library, query, read, expected)


@pytest.mark.parametrize("query", PARAMETERISED)
def test_parameterised_library_queries_are_refused_as_the_reference_does(query: str) -> None:
    with pytest.raises(CypherError) as raised:
        parse(query)
    assert raised.value.message == PARAMETERS_NOT_SUPPORTED


def test_the_graph_answers_most_questions() -> None:
    # Guard against a drawn graph where every answer is trivially empty.
    assert sum(1 for _, _, expected in COMMUNITY if expected) >= len(COMMUNITY) - 4
    assert everyone()


def test_the_corpora_hold_at_least_100_distinct_queries() -> None:
    from tests.graph.cypher.test_corpus import CORPUS as LAB_CORPUS
    from tests.graph.cypher.test_library import CORPUS as PREBUILT

    # The lab corpus repeats some queries once per object: count each such family once.
    families = {re.sub(r"'[^']*'", "'?'", query) for query, _ in LAB_CORPUS}
    distinct = families | {query for query, *_ in PREBUILT} | {query for query, *_ in COMMUNITY}
    assert len(distinct) >= 100
