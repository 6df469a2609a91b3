"""Queries from BloodHound's pre-built searches (bh-shared-ui commonSearches.tsx), the SpecterOps
BloodHoundQueryLibrary and CompassSecurity's BloodHoundQueries, run unchanged over the hand-drawn AD
forest and Azure tenant of library_graph.py. Each expected answer comes from the plain-Python model
of that graph (walks written here, not the engine's output)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from psycopg.types.json import Jsonb

from houndgraph.db import Database
from houndgraph.graph.cypher.execute import Result
from houndgraph.graph.cypher.parser import parse
from houndgraph.graph.cypher.translate import set_answer
from houndgraph.graph.cypher.translate.values import T
from houndgraph.graph.kinds import AD_TRAVERSABLE_EDGES, AZ_TRAVERSABLE_EDGES
from tests.graph.cypher.conftest import cypher
from tests.graph.cypher.library_graph import EDGES, NODES, Model

M = Model()
AD = "|".join(sorted(AD_TRAVERSABLE_EDGES))
AZ = "|".join(sorted(AZ_TRAVERSABLE_EDGES))
PRIVILEGED_ROLES = ("Global Administrator.*|User Administrator.*|Cloud Application Administrator.*|Authentication "
                    "Policy Administrator.*|Exchange Administrator.*|Helpdesk Administrator.*|Privileged "
                    "Authentication Administrator.*")
NOW = time.time()


@pytest.fixture(scope="module")
def library(database: Database) -> Iterator[Database]:
    with database.connect_raw() as conn:
        conn.execute("TRUNCATE edge, node RESTART IDENTITY CASCADE")
        names = sorted({k for kinds, _ in NODES.values() for k in kinds} | {k for _, k, _ in EDGES})
        conn.execute("INSERT INTO kind (name) SELECT unnest(%s::text[]) ON CONFLICT (name) DO NOTHING", (names,))
        ids: dict[str, int] = {}
        for key, (kinds, props) in NODES.items():
            row = conn.execute(
                "INSERT INTO node (kind_ids, properties) SELECT array_agg(id ORDER BY array_position(%s::text[], "
                "name))::smallint[], %s FROM kind WHERE name = ANY(%s::text[]) RETURNING id",
                (list(kinds), Jsonb(props), list(kinds))).fetchone()
            assert row is not None
            ids[key] = row[0]
        for start, kind, end in EDGES:
            conn.execute("INSERT INTO edge (start_id, end_id, kind_id) SELECT %s, %s, id FROM kind WHERE name = %s",
                         (ids[start], ids[end], kind))
        conn.commit()
    yield database
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("TRUNCATE edge, node RESTART IDENTITY CASCADE")


def _value(value: Any, kind: T, result: Result) -> Any:
    def name(node_id: int) -> str:
        return str(result.nodes[node_id].properties["name"])

    if value is None:
        return None
    if kind is T.NODE:
        return name(value)
    if kind is T.REL:
        edge = result.edges[value]
        return name(edge.start_id), edge.kind, name(edge.end_id)
    if kind is T.PATH:
        return tuple(name(v) for v in value[0::2])
    if kind is T.NODES:
        return tuple(name(v) for v in value)
    return tuple(value) if isinstance(value, list) else value


def rows(result: Result) -> list[tuple[Any, ...]]:
    return [tuple(_value(v, k, result) for v, k in zip(row, result.types, strict=True)) for row in result.rows]


def first(result: Result) -> set[Any]:
    return {row[0] for row in rows(result)}


def ends(result: Result) -> set[tuple[str, str, int]]:
    """Shortest paths compared by their ends and length: which of several equally short paths is
    returned is not defined."""
    return {(path[0], path[-1], len(path) - 1) for path, *_ in rows(result)}


def names(keys: Any) -> set[str]:
    return {M.name(k) for k in keys}


def path_names(paths: Any) -> set[tuple[str, ...]]:
    return {tuple(M.name(k) for k in path) for path in paths}


def edge_paths(kinds: list[str], test: Callable[[str, str], bool] = lambda s, e: True) -> set[tuple[str, ...]]:
    return path_names([s, e] for s, e in M.pairs(kinds) if test(s, e))


def regex(pattern: str, text: Any) -> bool:
    flags = re.IGNORECASE if pattern.startswith("(?i)") else 0
    return isinstance(text, str) and re.fullmatch(pattern.removeprefix("(?i)"), text, flags) is not None


def published_enrollment(test: Callable[[str], bool] = lambda t: True) -> set[tuple[str, ...]]:
    return path_names([p, t, ca] for p, t in M.pairs(["Enroll", "GenericAll", "AllExtendedRights"])
                      if "CertTemplate" in M.kinds[t] and test(t)
                      for ca in M.out(t, ["PublishedTo"]) if "EnterpriseCA" in M.kinds[ca])


def everyone() -> list[str]:
    return list(NODES)


DC_MEMBERS = {k for k in NODES for path in M.trails(k, ["MemberOf"], low=0) if M.rid(path[-1], "-516")}
UNSUPPORTED_OS = "(?i).*Windows.* (2000|2003|2008|2012|xp|vista|7|8|me|nt).*"
# (query, how the result is read, the expected answer)
CORPUS: list[tuple[str, Callable[[Result], Any], Any]] = [
    # --- BloodHound pre-built searches: Domain Information
    ('MATCH p=(n:Group)<-[:MemberOf*1..]-(m)\nWHERE n.objectid ENDS WITH "-512"\nRETURN p', first,
     path_names(M.trails("da", ["MemberOf"], reverse=True))),
    ("MATCH p=(n:Domain)-[]->(m:Domain)\nRETURN p", first,
     path_names([s, e] for s, _, e in M.edges if "Domain" in M.kinds[s] and "Domain" in M.kinds[e])),
    (f'MATCH (n:Computer)\nWHERE n.operatingsystem =~ "{UNSUPPORTED_OS}"\nRETURN n', first,
     names(c for c in M.of("Computer") if regex(UNSUPPORTED_OS, M.p(c, "operatingsystem")))),
    ('MATCH p = (:Domain)-[:Contains*1..]->(n:Base)\nWHERE n.system_tags="admin_tier_0"\nRETURN p', first,
     path_names(t for d in M.of("Domain") for t in M.trails(d, ["Contains"]) if M.tagged(t[-1])
                and "Base" in M.kinds[t[-1]])),
    # --- Dangerous Privileges
    ("MATCH p=()-[:DCSync|AllExtendedRights|GenericAll]->(:Domain)\nRETURN p", first,
     edge_paths(["DCSync", "AllExtendedRights", "GenericAll"], lambda s, e: "Domain" in M.kinds[e])),
    ("MATCH p=(n:User)-[:MemberOf]->(m:Group)\nWHERE m.domainsid<>n.domainsid\nRETURN p", first,
     edge_paths(["MemberOf"], lambda s, e: "User" in M.kinds[s] and "Group" in M.kinds[e]
                and M.p(s, "domainsid") != M.p(e, "domainsid"))),
    ("MATCH p=(n:Group)-[:MemberOf]->(m:Group)\nWHERE m.domainsid<>n.domainsid AND n.name<>m.name\nRETURN p", first,
     edge_paths(["MemberOf"], lambda s, e: "Group" in M.kinds[s] and "Group" in M.kinds[e]
                and M.p(s, "domainsid") != M.p(e, "domainsid"))),
    ('MATCH p=(m:Group)-[:AdminTo]->(n:Computer)\nWHERE m.objectid ENDS WITH "-513"\nRETURN p', first,
     edge_paths(["AdminTo"], lambda s, e: M.rid(s, "-513"))),
    ('MATCH p=(m:Group)-[:AllExtendedRights|ReadLAPSPassword]->(n:Computer)\nWHERE m.objectid ENDS WITH "-513"\n'
     "RETURN p", first, edge_paths(["AllExtendedRights", "ReadLAPSPassword"],
                                   lambda s, e: M.rid(s, "-513") and "Computer" in M.kinds[e])),
    (f"MATCH p=shortestPath((m:Group)-[:{AD}*1..]->(n))\nWHERE n.system_tags=\"admin_tier_0\" AND m.objectid ENDS "
     "WITH \"-513\" AND m<>n\nRETURN p", ends,
     M.shortest([g for g in M.of("Group") if M.rid(g, "-513")], [n for n in NODES if M.tagged(n)],
                AD_TRAVERSABLE_EDGES)),
    ('MATCH p=(m:Group)-[:CanRDP]->(c:Computer)\nWHERE m.objectid ENDS WITH "-513" AND NOT '
     'toUpper(c.operatingsystem) CONTAINS "SERVER"\nRETURN p', first,
     edge_paths(["CanRDP"], lambda s, e: M.rid(s, "-513") and "SERVER" not in M.p(e, "operatingsystem").upper())),
    ('MATCH p=(m:Group)-[:CanRDP]->(c:Computer)\nWHERE m.objectid ENDS WITH "-513" AND '
     'toUpper(c.operatingsystem) CONTAINS "SERVER"\nRETURN p', first,
     edge_paths(["CanRDP"], lambda s, e: M.rid(s, "-513") and "SERVER" in M.p(e, "operatingsystem").upper())),
    ("MATCH p=(m:Group)-[:Owns|WriteDacl|GenericAll|WriteOwner|ExecuteDCOM|GenericWrite|AllowedToDelegate|"
     'ForceChangePassword]->(n:Computer)\nWHERE m.objectid ENDS WITH "-513"\nRETURN p', first,
     edge_paths(["Owns", "WriteDacl", "GenericAll", "WriteOwner", "ExecuteDCOM", "GenericWrite", "AllowedToDelegate",
                 "ForceChangePassword"], lambda s, e: M.rid(s, "-513") and "Computer" in M.kinds[e])),
    ("MATCH (dc)-[r:MemberOf*0..]->(g:Group)\nWHERE g.objectid ENDS WITH '-516'\nWITH COLLECT(dc) AS exclude\n"
     "MATCH p = (c:Computer)-[n:HasSession]->(u:User)-[r2:MemberOf*1..]->(g:Group)\nWHERE g.objectid ENDS WITH "
     "'-512' AND NOT c IN exclude\nRETURN p", first,
     path_names([c, *t] for c in M.of("Computer") if c not in DC_MEMBERS for u in M.out(c, ["HasSession"])
                if "User" in M.kinds[u] for t in M.trails(u, ["MemberOf"]) if M.rid(t[-1], "-512"))),
    # --- Kerberos Interaction
    ('MATCH p=shortestPath((n:User)-[:MemberOf]->(g:Group))\nWHERE g.system_tags = "admin_tier_0" AND '
     "n.hasspn=true\nRETURN p", first,
     edge_paths(["MemberOf"], lambda s, e: "User" in M.kinds[s] and M.p(s, "hasspn") is True and M.tagged(e))),
    ("MATCH (n:User)\nWHERE n.hasspn=true\nRETURN n", first, names(u for u in M.of("User") if M.p(u, "hasspn"))),
    ("MATCH (u:User {hasspn:true})\nOPTIONAL MATCH (u)-[:AdminTo]->(c1:Computer)\nOPTIONAL MATCH "
     "(u)-[:MemberOf*1..]->(:Group)-[:AdminTo]->(c2:Computer)\nWITH u,COLLECT(c1) + COLLECT(c2) AS tempVar\n"
     "UNWIND tempVar AS comps\nRETURN u", first,
     names(u for u in M.of("User") if M.p(u, "hasspn") and (M.out(u, ["AdminTo"]) or any(
         M.out(g, ["AdminTo"]) for g in M.reach(u, ["MemberOf"]))))),
    ("MATCH (u:User)\nWHERE u.dontreqpreauth = true\nRETURN u", first,
     names(u for u in M.of("User") if M.p(u, "dontreqpreauth"))),
    # --- Shortest Paths (AD)
    (f"MATCH p=shortestPath((n)-[:{AD}*1..]->(m:Computer))\nWHERE m.unconstraineddelegation = true AND n<>m\n"
     "RETURN p", ends, M.shortest(everyone(), [c for c in M.of("Computer") if M.p(c, "unconstraineddelegation")],
                                  AD_TRAVERSABLE_EDGES)),
    (f"MATCH p=shortestPath((n:User)-[:{AD}*1..]->(m:Computer))\nWHERE n.hasspn = true AND n<>m\nRETURN p", ends,
     M.shortest([u for u in M.of("User") if M.p(u, "hasspn")], M.of("Computer"), AD_TRAVERSABLE_EDGES)),
    (f"MATCH p=shortestPath((n:User)-[:{AD}*1..]->(m:Group))\nWHERE n.hasspn = true AND m.objectid ENDS WITH "
     '"-512"\nRETURN p', ends, M.shortest([u for u in M.of("User") if M.p(u, "hasspn")], ["da"],
                                           AD_TRAVERSABLE_EDGES)),
    (f'MATCH p=shortestPath((n)-[:{AD}*1..]->(m))\nWHERE m.system_tags = "admin_tier_0" AND n<>m\nRETURN p', ends,
     M.shortest(everyone(), [n for n in NODES if M.tagged(n)], AD_TRAVERSABLE_EDGES)),
    (f'MATCH p=shortestPath((n:Group)-[:{AD}*1..]->(m))\nWHERE m.system_tags = "admin_tier_0" AND n.objectid '
     'ENDS WITH "-513" AND n<>m\nRETURN p', ends,
     M.shortest(["du"], [n for n in NODES if M.tagged(n)], AD_TRAVERSABLE_EDGES)),
    (f'MATCH p=shortestPath((n)-[:{AD}*1..]->(g:Group))\nWHERE g.objectid ENDS WITH "-512" AND n<>g\nRETURN p',
     ends, M.shortest(everyone(), ["da"], AD_TRAVERSABLE_EDGES)),
    # --- Active Directory Certificate Services
    ("MATCH p=()-[:HostsCAService|IssuedSignedBy|EnterpriseCAFor|RootCAFor|TrustedForNTAuth|NTAuthStoreFor*..]->()\n"
     "RETURN p", first,
     path_names(t for n in NODES for t in M.trails(n, ["HostsCAService", "IssuedSignedBy", "EnterpriseCAFor",
                                                       "RootCAFor", "TrustedForNTAuth", "NTAuthStoreFor"]))),
    ('MATCH p = (c:Container)-[:Contains*..]->()\nWHERE c.distinguishedname starts with "CN=PUBLIC KEY SERVICES,'
     'CN=SERVICES,CN=CONFIGURATION,DC="\nRETURN p', first, path_names(M.trails("pks", ["Contains"]))),
    ("MATCH p = ()-[:Enroll|GenericAll|AllExtendedRights]->(ct:CertTemplate)-[:PublishedTo]->(:EnterpriseCA)\n"
     "RETURN p", first, published_enrollment()),
    ("MATCH p = ()-[:Enroll|GenericAll|AllExtendedRights]->(ct:CertTemplate)-[:PublishedTo]->(:EnterpriseCA)\n"
     "WHERE ct.enrolleesuppliessubject = True\nAND ct.authenticationenabled = True\nAND ct.requiresmanagerapproval "
     "= False\nRETURN p", first,
     published_enrollment(lambda t: M.p(t, "enrolleesuppliessubject") is True and M.p(t, "authenticationenabled")
                          is True and M.p(t, "requiresmanagerapproval") is False)),
    # CONTAINS on a list is null in Neo4j: only the empty-EKU clause can hold.
    ("MATCH p = ()-[:Enroll|GenericAll|AllExtendedRights]->(ct:CertTemplate)-[:PublishedTo]->(:EnterpriseCA)\n"
     'WHERE ct.effectiveekus CONTAINS "1.3.6.1.4.1.311.20.2.1"\nOR ct.effectiveekus CONTAINS "2.5.29.37.0"\n'
     "OR SIZE(ct.effectiveekus) = 0\nRETURN p", first, published_enrollment(lambda t: M.p(t, "effectiveekus") == [])),
    ("MATCH p = ()-[:Enroll|GenericAll|AllExtendedRights]->(ct:CertTemplate)-[:PublishedTo]->(:EnterpriseCA)\n"
     "WHERE ct.nosecurityextension = true\nRETURN p", first,
     published_enrollment(lambda t: M.p(t, "nosecurityextension") is True)),
    ("MATCH p = ()-[:Enroll|GenericAll|AllExtendedRights]->(ct:CertTemplate)-[:PublishedTo]->(eca:EnterpriseCA)\n"
     "WHERE eca.isuserspecifiessanenabled = True\nRETURN p", first, published_enrollment()),
    ("MATCH p = ()-[:ManageCertificates|ManageCA]->(:EnterpriseCA)\nRETURN p", first,
     edge_paths(["ManageCertificates", "ManageCA"])),
    ("MATCH p = (dc:Computer)-[:DCFor]->(d)\nWHERE dc.strongcertificatebindingenforcementraw = 0 OR "
     "dc.strongcertificatebindingenforcementraw = 1\nRETURN p", first,
     edge_paths(["DCFor"], lambda s, e: M.p(s, "strongcertificatebindingenforcementraw") in (0, 1))),
    ("MATCH p = (dc:Computer)-[:DCFor]->(d)\nWHERE dc.certificatemappingmethodsraw IN [4, 5, 6, 7, 12, 13, 14, 15, "
     "20, 21, 22, 23, 28, 29, 30, 31]\nRETURN p", first,
     edge_paths(["DCFor"], lambda s, e: M.p(s, "certificatemappingmethodsraw") in (4, 5, 6, 7, 12, 13, 14, 15, 20,
                                                                                  21, 22, 23, 28, 29, 30, 31))),
    # --- Azure
    ("MATCH p = (n)-[r:AZGlobalAdmin*1..]->(m)\nRETURN p", first,
     path_names(t for n in NODES for t in M.trails(n, ["AZGlobalAdmin"]))),
    (f"MATCH p=(n)-[:AZHasRole|AZMemberOf*1..2]->(r:AZRole)\nWHERE r.name =~ '(?i){PRIVILEGED_ROLES}'\nRETURN p",
     first, path_names(t for n in NODES for t in M.trails(n, ["AZHasRole", "AZMemberOf"], 1, 2)
                       if "AZRole" in M.kinds[t[-1]] and regex(f"(?i){PRIVILEGED_ROLES}", M.name(t[-1])))),
    (f"MATCH p=shortestPath((m:AZUser)-[r:{AZ}*1..]->(n))\nWHERE n.system_tags = \"admin_tier_0\" AND n.name =~ "
     f"'(?i){PRIVILEGED_ROLES}' AND m<>n\nRETURN p", ends,
     M.shortest(M.of("AZUser"), [n for n in NODES if M.tagged(n) and regex(f"(?i){PRIVILEGED_ROLES}", M.name(n))],
                AZ_TRAVERSABLE_EDGES)),
    (f"MATCH p=shortestPath((m)-[r:{AZ}*1..]->(n:AZRole))\nWHERE n.name =~ '(?i){PRIVILEGED_ROLES}' AND m<>n\n"
     "RETURN p", ends, M.shortest(everyone(), [r for r in M.of("AZRole") if regex(f"(?i){PRIVILEGED_ROLES}",
                                                                                  M.name(r))], AZ_TRAVERSABLE_EDGES)),
    (f'MATCH p=shortestPath((m:AZApp)-[r:{AZ}*1..]->(n))\nWHERE n.system_tags = "admin_tier_0" AND m<>n\nRETURN p',
     ends, M.shortest(M.of("AZApp"), [n for n in NODES if M.tagged(n)], AZ_TRAVERSABLE_EDGES)),
    (f"MATCH p=shortestPath((m)-[r:{AZ}*1..]->(n:AZSubscription))\nWHERE m<>n\nRETURN p", ends,
     M.shortest(everyone(), M.of("AZSubscription"), AZ_TRAVERSABLE_EDGES)),
    ("MATCH p=(n)-[r:AZMGGrantAppRoles]->(o:AZTenant)\nRETURN p", first, edge_paths(["AZMGGrantAppRoles"])),
    ("MATCH p=(m:AZServicePrincipal)-[r:AZMGAppRoleAssignment_ReadWrite_All|AZMGApplication_ReadWrite_All|"
     "AZMGDirectory_ReadWrite_All|AZMGGroupMember_ReadWrite_All|AZMGGroup_ReadWrite_All|"
     "AZMGRoleManagement_ReadWrite_Directory|AZMGServicePrincipalEndpoint_ReadWrite_All]->(n:AZServicePrincipal)\n"
     "RETURN p", first, edge_paths(["AZMGAppRoleAssignment_ReadWrite_All"])),
]


def check(database: Database, query: str, read: Callable[[Result], Any], expected: Any) -> None:
    assert read(cypher(database, query)) == expected
    if set_answer.plan(parse(query)):
        # As the Cypher route runs it, rows once each where the query cannot tell repetitions apart.
        assert read(cypher(database, query, as_graph=True)) == expected


@pytest.mark.parametrize(("query", "read", "expected"), CORPUS, ids=[f"prebuilt{i:02}" for i in range(len(CORPUS))])
def test_prebuilt_search(library: Database, query: str, read: Callable[[Result], Any], expected: Any) -> None:
    assert expected, "every pre-built search finds something in the drawn graph"
    check(library, query, read, expected)
