"""BloodHound-style queries over the real SharpHound collection of ../shared/data (v6-adcs-lab),
loaded through the ingest readers and the graph store. Each expected answer is computed here in
plain Python from the JSON files themselves, never from the engine's output."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from houndgraph.db import Database
from houndgraph.graph.cypher.parser import parse
from houndgraph.graph.cypher.translate import set_answer
from houndgraph.graph.store import GraphStore
from houndgraph.ingest import expand_upload, read_file
from tests.conftest import DATA
from tests.graph.cypher.conftest import cypher

LAB = DATA / "sharphound" / "v6-adcs-lab"
SID = "S-1-5-21-909015691-3030120388-2582151266"


def _records(name: str) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = json.loads((LAB / f"{name}.json").read_text())["data"]
    return records


def _merged(name: str) -> dict[str, dict[str, Any]]:
    """Records by object id; one object may come in several records, whose parts add up."""
    merged: dict[str, dict[str, Any]] = {}
    for record in _records(name):
        oid = record["ObjectIdentifier"].upper()
        into = merged.setdefault(oid, {"ObjectIdentifier": oid, "Properties": {}, "Members": [], "Aces": []})
        for key, value in record.items():
            if key == "Properties":
                into["Properties"].update(value or {})
            elif key in ("Members", "Aces"):
                into[key].extend(value or [])
            elif key != "ObjectIdentifier":
                into[key] = value
    return merged


class Files:
    """Facts read straight from the collector files: the independent side of every check."""

    def __init__(self) -> None:
        self.users = _merged("users")
        self.groups = _merged("groups")
        self.computers = _merged("computers")
        self.gpos = _merged("gpos")
        self.templates = _merged("certtemplates")
        self.cas = _records("enterprisecas")
        self.domains = [r for r in _merged("domains").values() if r["Properties"].get("name")]
        self.ous = _records("ous")
        # Direct memberships, primary groups included (the directory leaves those out of Members).
        self.member_of: dict[str, set[str]] = {}
        for sid, group in self.groups.items():
            for member in group.get("Members") or []:
                self.member_of.setdefault(member["ObjectIdentifier"].upper(), set()).add(sid)
        for principal in [*self.users.values(), *self.computers.values()]:
            if principal.get("PrimaryGroupSID"):
                self.member_of.setdefault(principal["ObjectIdentifier"].upper(), set()).add(
                    principal["PrimaryGroupSID"].upper())

    def direct_members(self, group: str) -> set[str]:
        return {m for m, groups in self.member_of.items() if group in groups}

    def transitive_members(self, group: str) -> set[str]:
        found: set[str] = set()
        queue = deque([group])
        while queue:
            for member in self.direct_members(queue.popleft()):
                if member not in found:
                    found.add(member)
                    queue.append(member)
        return found

    def membership_distance(self, start: str, target: str) -> int | None:
        seen = {start: 0}
        queue = deque([start])
        while queue:
            node = queue.popleft()
            if node == target:
                return seen[node]
            for group in self.member_of.get(node, ()):
                if group not in seen:
                    seen[group] = seen[node] + 1
                    queue.append(group)
        return None

    def names(self, records: Any, test: Callable[[dict[str, Any]], bool]) -> set[str]:
        return {r["Properties"]["name"] for r in records if test(r["Properties"])}

    def ace_principals(self, record: dict[str, Any], right: str) -> set[str]:
        return {ace["PrincipalSID"].upper() for ace in record.get("Aces") or [] if ace["RightName"] == right}


FILES = Files()


@pytest.fixture(scope="module")
def lab(database: Database) -> Iterator[Database]:
    with database.connect_raw() as conn:
        conn.execute("TRUNCATE edge, node RESTART IDENTITY CASCADE")
        store = GraphStore(conn)
        for path in sorted(LAB.glob("*.json")):
            for file in expand_upload(Path(path), max_unzipped_bytes=1 << 30, max_ratio=1000):
                for batch in read_file(file):
                    store.write(batch, seen_at=datetime(2024, 1, 1, tzinfo=UTC))
        conn.commit()
    yield database
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("TRUNCATE edge, node RESTART IDENTITY CASCADE")


def column(database: Database, query: str, as_graph: bool = False) -> list[Any]:
    return [row[0] for row in cypher(database, query, as_graph=as_graph).rows]


def rid(suffix: str) -> str:
    return f"{SID}-{suffix}"


USERS_ENABLED = [u for u in FILES.users.values() if u["Properties"].get("enabled")]

# (query, the expected answer as a set of first-column values, or a scalar for single-row answers)
CORPUS: list[tuple[str, Any]] = [
    ("MATCH (u:User) WHERE u.hasspn = true AND u.enabled = true AND NOT u.objectid ENDS WITH '-502' "
     "RETURN u.name", FILES.names(FILES.users.values(), lambda p: p.get("hasspn") and p.get("enabled")
                                  and (p.get("samaccountname") or "").lower() != "krbtgt")),
    ("MATCH (u:User {hasspn: true}) RETURN u.name",
     FILES.names(FILES.users.values(), lambda p: p.get("hasspn"))),
    ("MATCH (u:User {dontreqpreauth: true}) WHERE u.enabled = true RETURN u.name",
     FILES.names(FILES.users.values(), lambda p: p.get("dontreqpreauth") and p.get("enabled"))),
    ("MATCH (u:User) WHERE u.pwdneverexpires = true AND u.enabled = true RETURN u.name",
     FILES.names(FILES.users.values(), lambda p: p.get("pwdneverexpires") and p.get("enabled"))),
    ("MATCH (u:User) WHERE u.passwordnotreqd = true RETURN u.name",
     FILES.names(FILES.users.values(), lambda p: p.get("passwordnotreqd"))),
    ("MATCH (u:User) WHERE u.admincount = true RETURN u.name",
     FILES.names(FILES.users.values(), lambda p: p.get("admincount"))),
    ("MATCH (u:User) WHERE u.enabled = false RETURN u.name",
     FILES.names(FILES.users.values(), lambda p: p.get("enabled") is False)),
    ("MATCH (u:User) WHERE u.trustedtoauth = true RETURN u.name",
     FILES.names(FILES.users.values(), lambda p: p.get("trustedtoauth"))),
    ("MATCH (u:User) WHERE size(u.serviceprincipalnames) > 0 RETURN u.name",
     FILES.names(FILES.users.values(), lambda p: bool(p.get("serviceprincipalnames")))),
    ("MATCH (u:User) WHERE u.pwdlastset < (datetime().epochseconds - (90 * 86400)) AND u.pwdlastset > 0 "
     "RETURN u.name", FILES.names(FILES.users.values(), lambda p: 0 < (p.get("pwdlastset") or 0) < datetime.now(UTC)
                                  .timestamp() - 90 * 86400)),
    ("MATCH (u:User) WHERE u.samaccountname IS NOT NULL RETURN count(u)",
     {sum(1 for u in FILES.users.values() if u["Properties"].get("samaccountname") is not None)}),
    ("MATCH (c:Computer {unconstraineddelegation: true}) RETURN c.name",
     FILES.names(FILES.computers.values(), lambda p: p.get("unconstraineddelegation"))),
    ("MATCH (c:Computer {unconstraineddelegation: true}) WHERE NOT (c)-[:MemberOf*1..]->(:Group "
     "{objectid: '" + rid("516") + "'}) RETURN c.name",
     {c["Properties"]["name"] for oid, c in FILES.computers.items() if c["Properties"].get("unconstraineddelegation")
      and oid not in FILES.transitive_members(rid("516"))}),
    ("MATCH (c:Computer) WHERE toUpper(c.operatingsystem) CONTAINS 'SERVER' RETURN c.name",
     FILES.names(FILES.computers.values(), lambda p: "SERVER" in (p.get("operatingsystem") or "").upper())),
    ("MATCH (c:Computer) WHERE c.operatingsystem =~ '(?i).*windows.*' RETURN c.name",
     FILES.names(FILES.computers.values(), lambda p: "windows" in (p.get("operatingsystem") or "").lower())),
    ("MATCH (c:Computer) WHERE c.haslaps = false AND c.enabled = true RETURN c.name",
     FILES.names(FILES.computers.values(), lambda p: p.get("haslaps") is False and p.get("enabled"))),
    ("MATCH (n)-[:MemberOf]->(g:Group) WHERE g.objectid ENDS WITH '-512' RETURN n.objectid",
     FILES.direct_members(rid("512"))),
    ("MATCH (n)-[:MemberOf*1..]->(g:Group) WHERE g.objectid ENDS WITH '-512' RETURN DISTINCT n.objectid",
     FILES.transitive_members(rid("512"))),
    ("MATCH (n)-[:MemberOf*1..]->(g:Group) WHERE g.objectid ENDS WITH '-519' RETURN DISTINCT n.objectid",
     FILES.transitive_members(rid("519"))),
    ("MATCH (n:User)-[:MemberOf*1..]->(g:Group) WHERE g.objectid ENDS WITH '-513' RETURN count(DISTINCT n)",
     {len({m for m in FILES.transitive_members(rid("513")) if m in FILES.users})}),
    ("MATCH (g:Group) WHERE (g.objectid =~ '.*-(512|519|544)$' OR g.objectid ENDS WITH '-S-1-5-32-544') "
     "AND g.samaccountname IS NOT NULL RETURN g.name", {g["Properties"]["name"] for oid, g in FILES.groups.items()
                       if oid.endswith(("-512", "-519", "-544"))}),
    ("MATCH (g:Group) WHERE NOT (g)<-[:MemberOf]-() AND g.samaccountname IS NOT NULL RETURN g.objectid",
     {oid for oid, g in FILES.groups.items()
      if not FILES.direct_members(oid) and g["Properties"].get("samaccountname") is not None}),
    ("MATCH (g:Group)<-[:MemberOf]-(m) WITH g, count(m) AS members WHERE members >= 3 RETURN g.objectid",
     {oid for oid in FILES.groups if len(FILES.direct_members(oid)) >= 3}),
    ("MATCH (g:Group)<-[:MemberOf]-(m) RETURN g.objectid, count(m) ORDER BY count(m) DESC, g.objectid LIMIT 1",
     {sorted(FILES.groups, key=lambda g: (-len(FILES.direct_members(g)), g))[0]}),
    ("MATCH (n)-[:GetChanges]->(d:Domain) MATCH (n)-[:GetChangesAll]->(d) RETURN n.objectid",
     {p for d in FILES.domains
      for p in FILES.ace_principals(d, "GetChanges") & FILES.ace_principals(d, "GetChangesAll")}),
    ("MATCH (n)-[:GenericAll]->(d:Domain) RETURN n.objectid",
     {p for d in FILES.domains for p in FILES.ace_principals(d, "GenericAll")}),
    ("MATCH (g:GPO) RETURN g.name", FILES.names(FILES.gpos.values(), lambda p: True)),
    ("MATCH (g:GPO)-[:GPLink]->(d:Domain) RETURN g.objectid",
     {link["GUID"].upper() for d in FILES.domains for link in d.get("Links") or []}),
    ("MATCH (g:GPO)-[:GPLink]->(o:OU) RETURN g.objectid",
     {link["GUID"].upper() for o in FILES.ous for link in o.get("Links") or []}),
    ("MATCH (o:OU)-[:Contains]->(c:Computer) RETURN c.objectid",
     {oid for oid, c in FILES.computers.items() if (c.get("ContainedBy") or {}).get("ObjectType") == "OU"}),
    ("MATCH (t:CertTemplate)-[:PublishedTo]->(:EnterpriseCA) RETURN t.objectid",
     {t["ObjectIdentifier"].upper() for ca in FILES.cas for t in ca["EnabledCertTemplates"]}),
    ("MATCH (t:CertTemplate) WHERE t.enrolleesuppliessubject = true AND t.requiresmanagerapproval = false "
     "RETURN t.name", FILES.names(FILES.templates.values(), lambda p: p.get("enrolleesuppliessubject")
                                  and not p.get("requiresmanagerapproval"))),
    ("MATCH (t:CertTemplate) WHERE '1.3.6.1.5.5.7.3.2' IN t.ekus RETURN t.name",
     FILES.names(FILES.templates.values(), lambda p: "1.3.6.1.5.5.7.3.2" in (p.get("ekus") or []))),
    ("MATCH (t:CertTemplate) WHERE t.schemaversion = 1 RETURN count(t)",
     {sum(1 for t in FILES.templates.values() if t["Properties"].get("schemaversion") == 1)}),
    ("MATCH (c:Computer)-[:HostsCAService]->(ca:EnterpriseCA) RETURN c.objectid",
     {ca["HostingComputer"].upper() for ca in FILES.cas}),
    ("MATCH (d:Domain) RETURN d.functionallevel", {d["Properties"]["functionallevel"] for d in FILES.domains
                                                if "functionallevel" in d["Properties"]}),
    ("MATCH (n:User) WITH n.enabled AS enabled, count(*) AS users WHERE enabled = true RETURN users",
     {sum(1 for u in FILES.users.values() if u["Properties"].get("enabled"))}),
    ("MATCH (n) WHERE n.objectid IN ['" + rid("512") + "', '" + rid("500") + "'] RETURN n.objectid",
     {o for o in (rid("512"), rid("500")) if o in FILES.groups or o in FILES.users}),
    ("UNWIND ['" + rid("512") + "', '" + rid("519") + "'] AS sid MATCH (g:Group {objectid: sid}) RETURN g.name",
     {FILES.groups[s]["Properties"]["name"] for s in (rid("512"), rid("519")) if s in FILES.groups}),
    ("MATCH (u:User) RETURN u.name UNION MATCH (c:Computer) RETURN c.name AS `u.name`",
     {r["Properties"]["name"] for r in [*FILES.users.values(), *FILES.computers.values()]}),
]
# One query per object of the families below: every group's members, every user's flags.
CORPUS += [
    (f"MATCH (m)-[:MemberOf]->(g:Group {{objectid: '{oid}'}}) RETURN m.objectid", FILES.direct_members(oid))
    for oid in sorted(FILES.groups)
]
CORPUS += [
    (f"MATCH (u:User {{objectid: '{oid}'}}) RETURN [u.enabled, u.hasspn, u.dontreqpreauth]",
     {(u["Properties"].get("enabled"), u["Properties"].get("hasspn"), u["Properties"].get("dontreqpreauth"))})
    for oid, u in sorted(FILES.users.items())
]
CORPUS += [
    (f"MATCH p = shortestPath((u:User {{objectid: '{oid}'}})-[:MemberOf*1..]->(g:Group)) "
     f"WHERE g.objectid ENDS WITH '-513' RETURN length(p)",
     {d} if (d := FILES.membership_distance(oid, rid("513"))) else set())
    for oid in sorted(FILES.users)
]


def _normal(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


@pytest.mark.parametrize(("query", "expected"), CORPUS, ids=[f"q{i:03}" for i in range(len(CORPUS))])
def test_corpus(lab: Database, query: str, expected: set[Any]) -> None:
    assert {_normal(v) for v in column(lab, query)} == {_normal(v) for v in expected}
    if set_answer.plan(parse(query)):
        # As the Cypher route runs it, rows once each where the query cannot tell repetitions apart.
        assert {_normal(v) for v in column(lab, query, as_graph=True)} == {_normal(v) for v in expected}


def test_corpus_is_large_enough() -> None:
    assert len(CORPUS) >= 100
