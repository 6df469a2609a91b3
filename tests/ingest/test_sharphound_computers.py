"""The SharpHound computer reader on small hand-made records: local groups in either layout, user rights, the
computer's own checks and its session rows. One behaviour per test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from houndgraph.graph.kinds import ADEdge, ADNode
from tests.ingest.helpers import D, classic, read_path, read_records, write_json


def new_layout_computer(sid: str) -> dict[str, Any]:
    def group(rid: str, name: str, members: list[dict[str, str]]) -> dict[str, Any]:
        return {
            "ObjectIdentifier": f"{sid}-{rid}",
            "Name": f"{name}@PC.LAB",
            "Results": members,
            "LocalNames": [],
            "Collected": True,
            "FailureReason": None,
        }

    return {
        "ObjectIdentifier": sid,
        "Properties": {"name": "PC.LAB"},
        "LocalGroups": [
            group("544", "ADMINISTRATORS", [{"ObjectIdentifier": f"{D}-512", "ObjectType": "Group"}]),
            group("555", "REMOTE DESKTOP USERS", [{"ObjectIdentifier": f"{D}-513", "ObjectType": "Group"}]),
            group("562", "DISTRIBUTED COM USERS", [{"ObjectIdentifier": f"{D}-1105", "ObjectType": "User"}]),
            group("580", "REMOTE MANAGEMENT USERS", [{"ObjectIdentifier": f"{D}-1106", "ObjectType": "User"}]),
            group("545", "USERS", []),  # empty groups are dropped
        ],
    }


def old_layout_computer(sid: str) -> dict[str, Any]:
    def members(*principals: tuple[str, str]) -> dict[str, Any]:
        return {"Results": [{"ObjectIdentifier": p, "ObjectType": t} for p, t in principals], "Collected": True}

    return {
        "ObjectIdentifier": sid,
        "Properties": {"name": "PC.LAB"},
        "LocalAdmins": members((f"{D}-512", "Group")),
        "RemoteDesktopUsers": members((f"{D}-513", "Group")),
        "DcomUsers": members((f"{D}-1105", "User")),
        "PSRemoteUsers": members((f"{D}-1106", "User")),
        "Sessions": {"Results": [], "Collected": False},
    }


def test_both_computer_layouts_give_the_same_local_group_shape(tmp_path: Path) -> None:
    new = read_path(write_json(tmp_path, classic("computers", [new_layout_computer(f"{D}-2000")]), "new.json"))
    old = read_path(write_json(tmp_path, classic("computers", [old_layout_computer(f"{D}-2000")]), "old.json"))

    def shape(result: Any) -> set[tuple[str, str, str, str | None, str | None]]:
        return {(e.start.value, e.kind, e.end.value, e.start.kind, e.end.kind) for e in result.edges}

    assert shape(old) == shape(new)
    assert shape(old) >= {
        (f"{D}-512", ADEdge.MemberOfLocalGroup, f"{D}-2000-544", ADNode.Group, ADNode.LocalGroup),
        (f"{D}-2000-544", ADEdge.LocalToComputer, f"{D}-2000", ADNode.LocalGroup, ADNode.Computer),
        (f"{D}-1106", ADEdge.MemberOfLocalGroup, f"{D}-2000-580", ADNode.User, ADNode.LocalGroup),
    }
    assert len(old.edges) == 8
    old_groups = {n.objectid: n.properties["name"] for n in old.nodes if n.kinds[0] == ADNode.LocalGroup}
    new_groups = {n.objectid: n.properties["name"] for n in new.nodes if n.kinds[0] == ADNode.LocalGroup}
    assert (
        old_groups
        == new_groups
        == {
            f"{D}-2000-544": "ADMINISTRATORS@PC.LAB",
            f"{D}-2000-555": "REMOTE DESKTOP USERS@PC.LAB",
            f"{D}-2000-562": "DISTRIBUTED COM USERS@PC.LAB",
            f"{D}-2000-580": "REMOTE MANAGEMENT USERS@PC.LAB",
        }
    )


def test_uncollected_local_groups_and_user_rights_give_nothing(tmp_path: Path) -> None:
    computer = new_layout_computer(f"{D}-2000")
    for group in computer["LocalGroups"]:
        group["Collected"] = False
    computer["UserRights"] = [
        {
            "Privilege": "SeRemoteInteractiveLogonRight",
            "Collected": False,
            "Results": [{"ObjectIdentifier": f"{D}-513", "ObjectType": "Group"}],
        }
    ]
    result = read_records(tmp_path, "computers", [computer])
    assert result.edges == []
    assert "hasura" not in result.node(f"{D}-2000").properties


def test_user_rights_local_names_and_computer_checks(tmp_path: Path) -> None:
    computer = {
        "ObjectIdentifier": f"{D}-2000",
        "Properties": {"name": "PC.LAB", "ldapsenabled": True},
        "UserRights": [
            {
                "Privilege": "SeBackupPrivilege",
                "Collected": True,
                "Results": [{"ObjectIdentifier": f"{D}-551", "ObjectType": "Group"}],
            }
        ],
        "LocalGroups": [
            {
                "ObjectIdentifier": f"{D}-2000-544",
                "Name": "ADMINISTRATORS@PC.LAB",
                "Collected": True,
                "Results": [{"ObjectIdentifier": f"{D}-2000-500", "ObjectType": "LocalUser"}],
                "LocalNames": [{"ObjectIdentifier": f"{D}-2000-500", "PrincipalName": "ADMINISTRATOR@PC"}],
            }
        ],
        "SmbInfo": {"Collected": True, "Result": {"SigningEnabled": False}},
        "IsWebClientRunning": {"Collected": True, "Result": True},
        "NTLMRegistryData": {"Collected": True, "Result": {"RestrictSendingNtlmTraffic": 2, "UseMachineId": 0}},
    }
    result = read_records(tmp_path, "computers", [computer])
    assert result.edge(ADEdge.BackupPrivilege, f"{D}-551", f"{D}-2000")
    member = result.edge(ADEdge.MemberOfLocalGroup, f"{D}-2000-500", f"{D}-2000-544")
    assert member.start.kind == ADNode.LocalUser
    assert result.node(f"{D}-2000-500").properties == {"name": "ADMINISTRATOR@PC"}
    properties = result.node(f"{D}-2000").properties
    assert properties["hasura"] is True and properties["smbsigning"] is False
    assert properties["webclientrunning"] is True and properties["restrictoutboundntlm"] is True
    assert properties["usemachineid"] is False and properties["lmcompatibilitylevel"] is None
    assert properties["ldapsavailable"] is True and "ldapsenabled" not in properties


def test_a_computers_session_rows_are_read_in_any_spelling(tmp_path: Path) -> None:
    # SharpHound's own two fields are read as they are; any other spelling or extra field goes through the
    # case-insensitive reading, where a later spelling of a field wins as a repeated JSON key does.
    computer = new_layout_computer(f"{D}-2000")
    computer["Sessions"] = {"Collected": True, "Results": [
        {"UserSID": f"{D}-1101", "ComputerSID": f"{D}-2000"},
        {"usersid": f"{D}-1102", "computersid": f"{D}-2000"},
        {"UserSid": f"{D}-1103", "ComputerSid": f"{D}-2000", "LogonType": 2},
        {"UserSID": f"{D}-1199", "usersid": f"{D}-1104", "ComputerSID": f"{D}-2000"},
        {"UserSID": f"{D}-1105", "ComputerSID": 7},
        {"UserSID": f"{D}-1106"},
        "junk",
    ]}
    result = read_records(tmp_path, "computers", [computer])
    sessions = {triple for triple in result.triples() if triple[1] == ADEdge.HasSession}
    assert sessions == {(f"{D}-2000", ADEdge.HasSession, f"{D}-{rid}") for rid in (1101, 1102, 1103, 1104)}
