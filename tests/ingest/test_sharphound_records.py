"""SharpHound readers on small hand-made records: one behaviour per test. Computer records (local groups, user
rights, sessions) are in test_sharphound_computers.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from houndgraph.graph.kinds import ADEdge, ADNode
from tests import site_lab
from tests.ingest.helpers import D, Result, read_path, read_records, write_json

OWNER_RIGHTS = "S-1-3-4"


def ace(principal: str, right: str, inherited: bool = False, kind: str = "Group", **extra: Any) -> dict[str, Any]:
    return {"PrincipalSID": principal, "PrincipalType": kind, "RightName": right, "IsInherited": inherited, **extra}


def user(objectid: str, aces: list[dict[str, Any]] | None = None, **fields: Any) -> dict[str, Any]:
    return {"ObjectIdentifier": objectid, "Properties": {"name": f"{objectid}@LAB"}, "Aces": aces or [], **fields}


def test_owner_and_write_owner_arrive_raw(tmp_path: Path) -> None:
    aces = [
        ace(f"{D}-512", "Owns"),
        ace(f"{D}-519", "WriteOwner", inherited=True, InheritanceHash="abc"),
        ace(f"{D}-1000", "GenericAll"),
    ]
    result = read_records(tmp_path, "users", [user(f"{D}-1100", aces)])
    assert result.edge(ADEdge.OwnsRaw, f"{D}-512", f"{D}-1100").properties == {"isacl": True, "isinherited": False}
    write_owner = result.edge(ADEdge.WriteOwnerRaw, f"{D}-519", f"{D}-1100")
    assert write_owner.properties == {"isacl": True, "isinherited": True, "inheritancehash": "abc"}
    assert not result.edges_of(ADEdge.Owns) and not result.edges_of(ADEdge.WriteOwner)
    assert result.edge(ADEdge.GenericAll, f"{D}-1000", f"{D}-1100").properties["isinherited"] is False
    assert result.node(f"{D}-1100").properties["ownersid"] == f"{D}-512"


def test_inherited_owner_rights_limit_owner_and_write_owner(tmp_path: Path) -> None:
    aces = [
        ace(f"{D}-512", "Owns"),
        ace(f"{D}-519", "WriteOwner"),
        ace(f"LAB-{OWNER_RIGHTS}", "GenericWrite", inherited=True),
    ]
    result = read_records(tmp_path, "users", [user(f"{D}-1100", aces)])
    owns = result.edge(ADEdge.OwnsLimitedRights, f"{D}-512", f"{D}-1100")
    assert owns.properties == {"isacl": True, "isinherited": False, "privileges": ["GenericWrite"]}
    write_owner = result.edge(ADEdge.WriteOwnerLimitedRights, f"{D}-519", f"{D}-1100")
    assert write_owner.properties["privileges"] == ["GenericWrite"]
    # The OWNER RIGHTS grant is not an edge of its own, and nothing is left for analysis to resolve.
    assert result.edge_kinds() == {ADEdge.OwnsLimitedRights: 1, ADEdge.WriteOwnerLimitedRights: 1}


def test_explicit_owner_rights_leave_write_owner_to_analysis(tmp_path: Path) -> None:
    aces = [ace(f"{D}-512", "Owns"), ace(f"{D}-519", "WriteOwner"), ace(f"LAB-{OWNER_RIGHTS}", "WriteDacl")]
    record = user(f"{D}-1100", aces)
    record["Properties"]["doesanyinheritedacegrantownerrights"] = False
    result = read_records(tmp_path, "users", [record])
    assert result.edge_kinds() == {ADEdge.OwnsLimitedRights: 1, ADEdge.WriteOwnerRaw: 1}


def test_inherited_harmless_owner_rights_make_owner_edges_moot(tmp_path: Path) -> None:
    aces = [ace(f"{D}-512", "Owns"), ace(f"{D}-519", "WriteOwner"), ace(f"{D}-1000", "WriteDacl")]
    blocked = user(f"{D}-1100", aces)
    blocked["Properties"].update(doesanyacegrantownerrights=True, doesanyinheritedacegrantownerrights=True)
    explicit = user(f"{D}-1101", aces)
    explicit["Properties"].update(doesanyacegrantownerrights=True, doesanyinheritedacegrantownerrights=False)
    result = read_records(tmp_path, "users", [blocked, explicit])
    assert result.triples(ADEdge.OwnsRaw) == set()
    assert result.triples(ADEdge.WriteOwnerRaw) == {(f"{D}-519", ADEdge.WriteOwnerRaw, f"{D}-1101")}
    assert len(result.edges_of(ADEdge.WriteDacl)) == 2


def test_unknown_rights_and_self_aces_are_skipped(tmp_path: Path) -> None:
    aces = [ace(f"{D}-1000", "FlyToTheMoon"), ace(f"{D}-1100", "GenericAll"), ace(f"{D}-1000", "GenericAll")]
    result = read_records(tmp_path, "users", [user(f"{D}-1100", aces)])
    assert result.triples() == {(f"{D}-1000", ADEdge.GenericAll, f"{D}-1100")}
    assert result.warnings == ["ACE right 'FlyToTheMoon' is not a known edge kind: ACE skipped"]


def test_field_names_match_case_insensitively(tmp_path: Path) -> None:
    record = {
        "objectidentifier": f"{D}-1100".lower(),
        "properties": {"Name": "X@LAB"},
        "spntargets": [{"computersid": f"{D}-1104", "port": 1433, "service": "SQLAdmin"}],
        "ACES": [{"principalsid": f"{D}-512", "principaltype": "group", "rightname": "genericall"}],
    }
    result = read_records(tmp_path, "users", [record])
    node = result.node(f"{D}-1100")
    assert node.properties == {"name": "X@LAB"}
    assert result.edge(ADEdge.SQLAdmin, f"{D}-1100", f"{D}-1104").properties == {"isacl": True, "port": 1433}
    generic_all = result.edge(ADEdge.GenericAll, f"{D}-512", f"{D}-1100")
    assert generic_all.start.kind == ADNode.Group


def test_gpo_links_enforced_and_gpo_changes(tmp_path: Path) -> None:
    ou = {
        "ObjectIdentifier": "OU-1",
        "Properties": {"name": "SERVERS@LAB", "blocksinheritance": True},
        "Links": [{"IsEnforced": True, "GUID": "gpo-a"}, {"IsEnforced": False, "Guid": "GPO-B"}],
        "ChildObjects": [{"ObjectIdentifier": f"{D}-2000", "ObjectType": "Computer"}],
        "GPOChanges": {
            "LocalAdmins": [{"ObjectIdentifier": f"{D}-1105", "ObjectType": "User"}],
            "AffectedComputers": [{"ObjectIdentifier": f"{D}-2000", "ObjectType": "Computer"}],
        },
    }
    result = read_records(tmp_path, "ous", [ou])
    assert result.edge(ADEdge.GPLink, "GPO-A", "OU-1").properties == {"isacl": False, "enforced": True}
    assert result.edge(ADEdge.GPLink, "GPO-B", "OU-1").properties["enforced"] is False
    assert result.edge(ADEdge.Contains, "OU-1", f"{D}-2000").end.kind == ADNode.Computer
    assert result.edge(ADEdge.MemberOfLocalGroup, f"{D}-1105", f"{D}-2000-544")
    assert result.edge(ADEdge.LocalToComputer, f"{D}-2000-544", f"{D}-2000")
    assert result.node("OU-1").properties["blocksinheritance"] is True


def test_trust_kinds_directions_and_attributes(tmp_path: Path) -> None:
    child, forest, other = "S-1-5-21-9-9-1", "S-1-5-21-9-9-2", "S-1-5-21-9-9-3"
    domain = {
        "ObjectIdentifier": D,
        "Properties": {"name": "LAB", "machineaccountquota": "10", "minpwdlength": "seven"},
        "Trusts": [
            {
                "TargetDomainSid": child,
                "TargetDomainName": "CHILD.LAB",
                "TrustDirection": "Inbound",
                "TrustType": "ParentChild",
                "IsTransitive": True,
                "TrustAttributes": "32",
                "TGTDelegationEnabled": False,
            },
            {
                "TargetDomainSid": forest,
                "TargetDomainName": "OTHER",
                "TrustDirection": "Outbound",
                "TrustType": "Forest",
                "SidFilteringEnabled": False,
                "TrustAttributes": 8,
            },
            {
                "TargetDomainSid": other,
                "TargetDomainName": "THIRD",
                "TrustDirection": "Inbound",
                "TrustType": "External",
                "TGTDelegationEnabled": True,
                "TrustAttributes": 4,
            },
        ],
    }
    result = read_records(tmp_path, "domains", [domain])
    inbound = result.edge(ADEdge.SameForestTrust, child, D)
    assert inbound.properties == {
        "isacl": False,
        "trusttype": "ParentChild",
        "transitive": True,
        "trustattributesinbound": 32,
        "tgtdelegation": False,
    }
    outbound = result.edge(ADEdge.CrossForestTrust, D, forest)
    assert outbound.properties["trustattributesoutbound"] == 8
    assert outbound.properties["spoofsidhistoryblocked"] is False
    assert result.edge(ADEdge.SpoofSIDHistory, forest, D)
    assert result.edge(ADEdge.AbuseTGTDelegation, other, D)
    assert result.edge(ADEdge.CrossForestTrust, other, D).properties["tgtdelegation"] is True
    properties = [n for n in result.nodes if n.objectid == D][0].properties
    assert properties["machineaccountquota"] == 10 and "minpwdlength" not in properties


def test_group_members_sid_history_and_dn_members(tmp_path: Path) -> None:
    group = {
        "ObjectIdentifier": f"{D}-512",
        "Properties": {"name": "DOMAIN ADMINS@LAB"},
        "Members": [
            {"ObjectIdentifier": f"{D}-500", "ObjectType": "User"},
            {"ObjectIdentifier": f"{D}-1200", "ObjectType": "Group"},
            {"ObjectIdentifier": "DN=CN=GHOST,DC=LAB", "ObjectType": "Base"},
        ],
        "HasSIDHistory": [{"ObjectIdentifier": "S-1-5-21-7-7-7-512", "ObjectType": "Group"}],
    }
    result = read_records(tmp_path, "groups", [group])
    assert result.triples(ADEdge.MemberOf) == {
        (f"{D}-500", ADEdge.MemberOf, f"{D}-512"),
        (f"{D}-1200", ADEdge.MemberOf, f"{D}-512"),
    }
    assert result.edge(ADEdge.MemberOf, f"{D}-1200", f"{D}-512").start.kind == ADNode.Group
    assert result.edge(ADEdge.HasSIDHistory, f"{D}-512", "S-1-5-21-7-7-7-512")
    assert result.warnings == [
        f"group {D}-512: member 'DN=CN=GHOST,DC=LAB' is a distinguished name, not an id: skipped"
    ]


def test_enterprise_ca_without_registry_security_uses_directory_aces(tmp_path: Path) -> None:
    ca = {
        "ObjectIdentifier": "CA-1",
        "Properties": {"name": "CA@LAB"},
        "HostingComputer": f"{D}-1000",
        "Aces": [ace(f"{D}-513", "Enroll"), ace(f"{D}-512", "ManageCA")],
        "CARegistryData": {
            "CASecurity": {"Collected": False},
            "RoleSeparationEnabled": {"Collected": True, "Value": True},
        },
        "HttpEnrollmentEndpoints": [
            {"Collected": True, "Result": {"Url": "http://ca/certsrv", "ADCSWebEnrollmentHTTP": True}}
        ],
    }
    result = read_records(tmp_path, "enterprisecas", [ca])
    assert result.triples() == {
        (f"{D}-513", ADEdge.Enroll, "CA-1"),
        (f"{D}-512", ADEdge.ManageCA, "CA-1"),
        (f"{D}-1000", ADEdge.HostsCAService, "CA-1"),
    }
    properties = result.node("CA-1").properties
    assert properties["roleseparationenabled"] is True
    assert properties["httpenrollmentendpoints"] == ["http://ca/certsrv"]
    assert properties["hasvulnerableendpoint"] is True


def test_gpo_status_issuance_policy_and_pki_stores(tmp_path: Path) -> None:
    gpos = read_records(tmp_path, "gpos", [{"ObjectIdentifier": "GPO-1", "Properties": {"gpostatus": "3 "}}])
    assert gpos.node("GPO-1").properties == {"gpostatus": "Disabled", "gpostatusraw": "3"}
    policy = {
        "ObjectIdentifier": "POL-1",
        "Properties": {"certtemplateoid": "1.2.3"},
        "GroupLink": {"ObjectIdentifier": f"{D}-1300", "ObjectType": "Group"},
    }
    policies = read_path(
        write_json(tmp_path, {"meta": {"type": "issuancepolicies", "version": 6}, "data": [policy]}, "p.json")
    )
    assert policies.edge(ADEdge.OIDGroupLink, "POL-1", f"{D}-1300").end.kind == ADNode.Group
    assert policies.node("POL-1").properties["grouplinkid"] == f"{D}-1300"


def test_sessions_deleted_and_malformed_rows_warn(tmp_path: Path) -> None:
    sessions = read_records(
        tmp_path,
        "sessions",
        [{"ComputerSID": f"{D}-2000", "UserSID": f"{D}-1105", "LogonType": 10}, {"ComputerSID": f"{D}-2000"}, "junk"],
    )
    assert sessions.triples() == {(f"{D}-2000", ADEdge.HasSession, f"{D}-1105")}
    assert sessions.warnings == [
        "a session row lacks ComputerSID or UserSID: skipped",
        "data[2] is not an object: skipped",
    ]
    deleted = read_path(
        write_json(tmp_path, {"meta": {"type": "deleted", "version": 6}, "data": ["abc-def", 7]}, "d.json")
    )
    assert deleted.deletions == ["ABC-DEF"]
    assert deleted.warnings == ["data[1] of a deleted file is not an object id: skipped"]


def test_odd_values_cost_an_edge_not_the_file(tmp_path: Path) -> None:
    broken = user(f"{D}-1101", [ace(f"{D}-512", "GenericAll")])
    broken["Trusts"] = "n/a"
    broken["Properties"] = {"name": "B@LAB"}
    broken["SPNTargets"] = [{"Service": "SQLAdmin", "ComputerSID": 42}]  # a number where an id belongs
    result = read_records(tmp_path, "users", [user(f"{D}-1100"), broken, {"Properties": {}}])
    assert {node.objectid for node in result.nodes} == {f"{D}-1100", f"{D}-1101"}
    assert result.warnings == ["a user record has no ObjectIdentifier: record skipped"]
    assert not result.edges_of(ADEdge.SQLAdmin)


def test_old_data_versions_read_with_a_warning(tmp_path: Path) -> None:
    document = {"meta": {"type": "users", "version": 4, "count": 1}, "data": [user(f"{D}-1100")]}
    result = read_path(write_json(tmp_path, document))
    assert [node.objectid for node in result.nodes] == [f"{D}-1100"]
    assert result.warnings == ["meta.version 4 predates SharpHound CE (version 5): some relationships may be missing"]
    v5 = read_path(write_json(tmp_path, {**document, "meta": {"type": "users", "version": 5}}, "v5.json"))
    assert v5.warnings == []


def test_site_records_give_their_nodes_links_containment_and_server_computers(tmp_path: Path) -> None:
    # The lab's site documents; its servers spell the computer field as SharpHoundCommon does ("SeverIs").
    result = Result()
    for name, content in site_lab.documents().items():
        if name.startswith("site"):
            (tmp_path / name).write_bytes(content)
            found = read_path(tmp_path / name)
            result.nodes.extend(found.nodes)
            result.edges.extend(found.edges)
    assert result.node_kinds() == {ADNode.Site: 2, ADNode.SiteServer: 2, ADNode.SiteSubnet: 3}
    assert result.node(site_lab.HQ).kinds == (ADNode.Site, ADNode.Base)
    assert result.triples(ADEdge.GPLink) == {(site_lab.GPO_HQ, ADEdge.GPLink, site_lab.HQ),
                                            (site_lab.GPO_ALL, ADEdge.GPLink, site_lab.HQ),
                                            (site_lab.GPO_ALL, ADEdge.GPLink, site_lab.BRANCH)}
    assert result.edge(ADEdge.GPLink, site_lab.GPO_HQ, site_lab.HQ).properties == {"isacl": False, "enforced": True}
    assert result.triples(ADEdge.ServerIs) == {(site_lab.HQ_SERVER, ADEdge.ServerIs, site_lab.DC01),
                                              (site_lab.BRANCH_SERVER, ADEdge.ServerIs, site_lab.DC02)}
    assert result.edge(ADEdge.ServerIs, site_lab.HQ_SERVER, site_lab.DC01).end.kind == ADNode.Computer
    hq_children = {site_lab.HQ_SERVER, *site_lab.HQ_SUBNETS}
    branch_children = {site_lab.BRANCH_SERVER, site_lab.BRANCH_SUBNET}
    assert result.triples(ADEdge.Contains) == {*((site_lab.HQ, ADEdge.Contains, c) for c in hq_children),
                                              *((site_lab.BRANCH, ADEdge.Contains, c) for c in branch_children)}
    assert {(e.start.value, e.kind) for e in result.edges_of(ADEdge.GenericAll) + result.edges_of(ADEdge.WriteDacl)} \
        == {(site_lab.ALICE, ADEdge.GenericAll), (site_lab.SITE_ADMINS, ADEdge.WriteDacl)}


def test_a_site_server_may_name_its_computer_as_server_is(tmp_path: Path) -> None:
    server = {"ObjectIdentifier": "SERVER-1", "Properties": {"name": "DC01@X.LOCAL"},
              "ContainedBy": {"ObjectIdentifier": "SITE-1", "ObjectType": "Site"},
              "ServerIs": {"ObjectIdentifier": f"{D}-1001", "ObjectType": "Computer"}}
    result = read_records(tmp_path, "siteservers", [server])
    assert result.triples() == {("SERVER-1", ADEdge.ServerIs, f"{D}-1001"), ("SITE-1", ADEdge.Contains, "SERVER-1")}
    assert result.edge(ADEdge.Contains, "SITE-1", "SERVER-1").start.kind == ADNode.Site
