"""The real SharpHound collections in ../shared/data, read in place.

Expected figures were read from the files themselves (by hand and with a plain json.load), not from
the readers: e.g. 48 MemberOf = 33 group Members entries + 15 PrimaryGroupSID values.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from houndgraph.graph.kinds import ADEdge, ADNode
from houndgraph.ingest import expand_upload
from tests.conftest import DATA
from tests.ingest.helpers import Result, read, read_path

ADCS = DATA / "sharphound" / "v6-adcs-lab"
TESTLAB = DATA / "sharphound" / "v6-testlab"
ESC1 = "S-1-5-21-909015691-3030120388-2582151266"
TL = "S-1-5-21-3130019616-2776909439-2417379446"


def read_folder(folder: Path) -> Result:
    total = Result()
    for path in sorted(folder.glob("*.json")):
        result = read_path(path)
        total.nodes += result.nodes
        total.edges += result.edges
        total.deletions += result.deletions
        total.warnings += result.warnings
    return total


@pytest.fixture(scope="module")
def adcs() -> Result:
    return read_folder(ADCS)


@pytest.fixture(scope="module")
def testlab() -> Result:
    return read_folder(TESTLAB)


def test_adcs_lab_node_counts_per_kind(adcs: Result) -> None:
    assert adcs.node_kinds() == {
        ADNode.User: 14,
        ADNode.Group: 86,
        ADNode.Computer: 2,
        ADNode.Domain: 2,
        ADNode.OU: 1,
        ADNode.GPO: 2,
        ADNode.Container: 207,
        ADNode.CertTemplate: 34,
        ADNode.EnterpriseCA: 1,
        ADNode.RootCA: 1,
        ADNode.AIACA: 1,
        ADNode.NTAuthStore: 1,
        ADNode.IssuancePolicy: 3,
    }
    assert all(node.kinds[1] == ADNode.Base for node in adcs.nodes)
    assert adcs.warnings == []


def test_adcs_lab_edge_counts_per_kind(adcs: Result) -> None:
    assert adcs.edge_kinds() == {
        ADEdge.MemberOf: 48,
        ADEdge.Contains: 316,
        ADEdge.OwnsRaw: 315,
        ADEdge.WriteOwnerRaw: 583,
        ADEdge.WriteDacl: 583,
        ADEdge.GenericAll: 405,
        ADEdge.GenericWrite: 103,
        ADEdge.Enroll: 100,
        ADEdge.AddKeyCredentialLink: 26,
        ADEdge.AllExtendedRights: 19,
        ADEdge.GetChanges: 3,
        ADEdge.GetChangesAll: 2,
        ADEdge.GetChangesInFilteredSet: 2,
        ADEdge.ManageCA: 4,
        ADEdge.ManageCertificates: 4,
        ADEdge.DelegatedEnrollmentAgent: 25,
        ADEdge.PublishedTo: 12,
        ADEdge.HostsCAService: 1,
        ADEdge.RootCAFor: 1,
        ADEdge.NTAuthStoreFor: 1,
        ADEdge.OIDGroupLink: 1,
        ADEdge.GPLink: 2,
        ADEdge.HasSession: 2,
        ADEdge.LocalToComputer: 7,
        ADEdge.MemberOfLocalGroup: 12,
        ADEdge.RemoteInteractiveLogonRight: 1,
        ADEdge.CoerceToTGT: 1,
    }
    # No post-processed kind comes out of a collector file.
    assert not {ADEdge.Owns, ADEdge.WriteOwner, ADEdge.AdminTo, ADEdge.DCSync} & set(adcs.edge_kinds())


def test_administrator_memberships_include_the_primary_group(adcs: Result) -> None:
    admin = f"{ESC1}-500"
    groups = {edge.end.value: edge.properties for edge in adcs.edges_of(ADEdge.MemberOf, start=admin)}
    assert set(groups) == {
        f"{ESC1}-512",
        f"{ESC1}-518",
        f"{ESC1}-519",
        f"{ESC1}-520",
        "ESC1.LOCAL-S-1-5-32-544",
        f"{ESC1}-513",
    }
    assert groups[f"{ESC1}-513"] == {"isacl": False, "isprimarygroup": True}
    assert groups[f"{ESC1}-512"]["isprimarygroup"] is False
    member_of = adcs.edge(ADEdge.MemberOf, admin, f"{ESC1}-512")
    assert (member_of.start.kind, member_of.end.kind) == (ADNode.User, ADNode.Group)


def test_inherited_ace_on_a_user(adcs: Result) -> None:
    user = next(node for node in adcs.nodes if node.properties.get("name") == "DAVIS@ESC1.LOCAL")
    edge = adcs.edge(ADEdge.AddKeyCredentialLink, f"{ESC1}-526", user.objectid)
    assert edge.properties == {"isacl": True, "isinherited": True, "inheritancehash": ""}
    assert edge.start.kind == ADNode.Group and edge.end.kind == ADNode.User
    owner = adcs.edge(ADEdge.OwnsRaw, f"{ESC1}-512", user.objectid)
    assert owner.properties == {"isacl": True, "isinherited": False}
    assert user.properties["ownersid"] == f"{ESC1}-512"


def test_user_properties_are_kept_as_sharphound_gives_them(adcs: Result) -> None:
    user = next(node for node in adcs.nodes if node.properties.get("name") == "DAVIS@ESC1.LOCAL")
    assert user.properties["distinguishedname"] == "CN=DAVIS,CN=USERS,DC=ESC1,DC=LOCAL"
    assert user.properties["domainsid"] == ESC1
    assert user.properties["samaccountname"] == "Davis"
    assert user.properties["pwdlastset"] == 1664490311


def test_stub_domain_record_comes_before_the_full_one(adcs: Result) -> None:
    records = [node for node in adcs.nodes if node.objectid == ESC1]
    assert [record.properties for record in records][0] == {"collected": True}
    assert records[1].properties["name"] == "ESC1.LOCAL"
    assert records[1].properties["functionallevel"] == "2016"


def test_gpo_link_and_containment(adcs: Result) -> None:
    link = adcs.edge(ADEdge.GPLink, "C8C7B7E0-C0F7-4FAC-8CCB-4B7C1CD03996", ESC1)
    assert link.properties == {"isacl": False, "enforced": False}
    assert link.start.kind == ADNode.GPO and link.end.kind == ADNode.Domain
    dc = f"{ESC1}-1000"
    contains = adcs.edge(ADEdge.Contains, "1AEEE963-F4C8-49DA-BBE6-A6107F42CAF0", dc)
    assert contains.start.kind == ADNode.OU


def test_domain_controller_sessions_local_groups_and_registry(adcs: Result) -> None:
    dc = f"{ESC1}-1000"
    assert adcs.edges_of(ADEdge.HasSession, start=dc, end=f"{ESC1}-500")
    administrators = "ESC1.LOCAL-S-1-5-32-544"
    assert adcs.edge(ADEdge.LocalToComputer, administrators, dc).start.kind == ADNode.LocalGroup
    members = {edge.start.value for edge in adcs.edges_of(ADEdge.MemberOfLocalGroup, end=administrators)}
    assert members == {f"{ESC1}-500", f"{ESC1}-519", f"{ESC1}-512"}
    assert adcs.edge(ADEdge.RemoteInteractiveLogonRight, administrators, dc)
    # DC built-in groups are named IGNOREME by SharpHound: no local-group node, groups.json has them.
    assert not [node for node in adcs.nodes if node.kinds[0] == ADNode.LocalGroup]
    computer = adcs.node(dc)
    assert computer.properties["strongcertificatebindingenforcementraw"] == 2
    assert computer.properties["strongcertificatebindingenforcement"] == "Full enforcement mode"
    assert computer.properties["certificatemappingmethodsraw"] == -1
    assert computer.properties["hasura"] is True


def test_enterprise_ca_links_and_registry_security(adcs: Result) -> None:
    ca = "14CEE53E-4D95-4DDD-A244-BF15C73DC06A"
    assert adcs.edge(ADEdge.HostsCAService, f"{ESC1}-1000", ca).start.kind == ADNode.Computer
    assert len(adcs.edges_of(ADEdge.PublishedTo, end=ca)) == 12
    assert adcs.edge(ADEdge.PublishedTo, "DEBC8BEB-40AF-48B5-940F-AAFAFE961B26", ca).start.kind == ADNode.CertTemplate
    # CA security from the registry decides the management rights: BUILTIN\Administrators has them there.
    assert adcs.edge(ADEdge.ManageCA, "ESC1.LOCAL-S-1-5-32-544", ca)
    assert adcs.edge(ADEdge.ManageCertificates, f"{ESC1}-512", ca)
    properties = adcs.node(ca).properties
    assert properties["isuserspecifiessanenabled"] is False
    assert properties["hasenrollmentagentrestrictions"] is True
    assert properties["casecuritycollected"] is True
    agents = {edge.start.value for edge in adcs.edges_of(ADEdge.DelegatedEnrollmentAgent)}
    assert agents == {"ESC1.LOCAL-S-1-1-0", f"{ESC1}-513"}


def test_pki_objects_point_at_their_domain(adcs: Result) -> None:
    rootca_for = adcs.edges_of(ADEdge.RootCAFor)[0]
    ntauth_for = adcs.edges_of(ADEdge.NTAuthStoreFor)[0]
    assert rootca_for.end.value == ntauth_for.end.value == ESC1
    assert rootca_for.end.kind == ADNode.Domain


def test_zip_holds_the_same_thirteen_files(adcs: Result) -> None:
    files = list(expand_upload(ADCS / "adcs.zip", max_unzipped_bytes=1 << 30, max_ratio=1000))
    assert len(files) == 13
    assert {file.parent_name for file in files} == {"adcs.zip"}
    zipped = Result()
    for file in files:
        result = read(file)
        zipped.nodes += result.nodes
        zipped.edges += result.edges
    assert zipped.node_kinds() == adcs.node_kinds()
    assert zipped.edge_kinds() == adcs.edge_kinds()
    assert zipped.triples() == adcs.triples()


def test_testlab_counts(testlab: Result) -> None:
    assert testlab.node_kinds() == {
        ADNode.User: 17,
        ADNode.Group: 30,
        ADNode.Computer: 4,
        ADNode.Domain: 3,
        ADNode.OU: 2,
        ADNode.GPO: 7,
        ADNode.Container: 23,
        ADNode.LocalGroup: 4,
    }
    assert testlab.edge_kinds()[ADEdge.HasSession] == 6
    assert testlab.edge_kinds()[ADEdge.CrossForestTrust] == 3
    assert testlab.edge_kinds()[ADEdge.MemberOfLocalGroup] == 5
    assert sum(testlab.edge_kinds().values()) == 739
    assert len(testlab.deletions) == 6
    assert testlab.warnings == []


def test_testlab_sessions_from_computer_and_sessions_file(testlab: Result) -> None:
    computer = f"{TL}-1104"
    users = Counter(edge.end.value for edge in testlab.edges_of(ADEdge.HasSession, start=computer))
    # 1105 appears twice in the computer's Sessions; 1107 is privileged, 1108 registry, 2117 the sessions file.
    assert users == {f"{TL}-1105": 2, f"{TL}-500": 1, f"{TL}-1107": 1, f"{TL}-1108": 1, f"{TL}-2117": 1}
    from_file = testlab.edge(ADEdge.HasSession, computer, f"{TL}-2117")
    assert from_file.properties == {"isacl": False, "logontype": 2}


def test_testlab_trusts_follow_direction(testlab: Result) -> None:
    external, test = "S-1-5-21-3084884204-958224920-2707782874", "S-1-5-21-3084884204-958224920-2707782873"
    assert testlab.triples(ADEdge.CrossForestTrust) == {
        (external, ADEdge.CrossForestTrust, TL),
        (TL, ADEdge.CrossForestTrust, external),
        (TL, ADEdge.CrossForestTrust, test),
    }
    outbound = testlab.edge(ADEdge.CrossForestTrust, TL, test)
    assert outbound.properties["spoofsidhistoryblocked"] is True
    assert outbound.properties["transitive"] is True
    assert outbound.properties["trustattributesoutbound"] is None  # not collected by this SharpHound
    assert not testlab.edges_of(ADEdge.SpoofSIDHistory)  # SID filtering is on
    target = [node for node in testlab.nodes if node.objectid == test][0]
    assert target.properties == {"name": "TEST.LOCAL", "domainsid": test}


def test_testlab_delegation_sid_history_spn_targets(testlab: Result) -> None:
    dfm = f"{TL}-1105"
    assert testlab.edge("SQLAdmin", dfm, f"{TL}-12345").properties == {"isacl": True, "port": 1433}
    assert testlab.edge(ADEdge.HasSIDHistory, dfm, f"{TL}-12344")
    assert testlab.edge(ADEdge.AllowedToDelegate, dfm, f"{TL}-12345")
    assert testlab.edge(ADEdge.CoerceToTGT, f"{TL}-2125", TL).end.kind == ADNode.Domain
    assert testlab.edge(ADEdge.AllowedToAct, f"{TL}-12345", f"{TL}-1104")


def test_testlab_dc_for_and_local_groups(testlab: Result) -> None:
    assert testlab.edge(ADEdge.DCFor, f"{TL}-1001", TL)
    # The DC has unconstrained delegation by design: no CoerceToTGT from it.
    assert not testlab.edges_of(ADEdge.CoerceToTGT, start=f"{TL}-1001")
    admins = testlab.node(f"{TL}-1104-544")
    assert admins.kinds == (ADNode.LocalGroup, ADNode.Base)
    assert admins.properties == {"name": "ADMINISTRATORS@WIN10.TESTLAB.LOCAL"}
    members = {edge.start.value for edge in testlab.edges_of(ADEdge.MemberOfLocalGroup, end=f"{TL}-1104-544")}
    assert members == {f"{TL}-512", f"{TL}-1105"}
    assert testlab.edge(ADEdge.LocalToComputer, f"{TL}-1104-555", f"{TL}-1104")


def test_testlab_deleted_ids(testlab: Result) -> None:
    assert testlab.deletions[0] == "E75F86EE-CFC9-413F-B2B0-F2B17D365330"
    assert f"{TL}-2124" in testlab.deletions
