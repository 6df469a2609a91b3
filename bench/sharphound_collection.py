"""The synthetic SharpHound v6 collection the ingest, upload and scale benchmarks share, written as real JSON files
one record at a time (nothing is held in memory): one domain, OUs, GPOs, containers, users (55 %), computers (25 %)
with sessions and local groups, and groups (15 %) nested in a tree, with ACEs on everything, about ten edges per
object. `Layout` says how N objects split into kinds and which object id each one has."""

from __future__ import annotations

import dataclasses
import itertools
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

DOMAIN = "BENCH.LOCAL"
DOMAIN_SID = "S-1-5-21-1004336348-1177238915-682003330"
# Well-known principals every ACL names: most ACE ends in a real domain are these few groups.
DOMAIN_ADMINS = f"{DOMAIN_SID}-512"
ENTERPRISE_ADMINS = f"{DOMAIN_SID}-519"
KEY_ADMINS = f"{DOMAIN_SID}-526"
DOMAIN_USERS = f"{DOMAIN_SID}-513"
DOMAIN_COMPUTERS = f"{DOMAIN_SID}-515"
ADMINISTRATORS = f"{DOMAIN}-S-1-5-32-544"
ACCOUNT_OPERATORS = f"{DOMAIN}-S-1-5-32-548"
WELL_KNOWN_GROUPS = (DOMAIN_ADMINS, ENTERPRISE_ADMINS, KEY_ADMINS, DOMAIN_USERS, DOMAIN_COMPUTERS,
                     ADMINISTRATORS, ACCOUNT_OPERATORS)  # fmt: skip
FIRST_RID = 1100


@dataclass(frozen=True)
class Layout:
    """How N objects split into kinds; object i of a kind has RID FIRST_RID + offset + i."""

    users: int
    computers: int
    groups: int
    ous: int
    gpos: int
    containers: int
    # Added to new computers' RIDs (`--new-computers`): objects a stored collection of this layout does not hold.
    computer_rid_offset: int = 0

    @classmethod
    def of(cls, objects: int) -> Layout:
        ous = max(1, objects // 100)
        gpos = max(1, objects // 200)
        containers = max(1, objects // 200)
        groups = max(8, objects * 15 // 100)
        computers = max(1, objects * 25 // 100)
        users = max(1, objects - ous - gpos - containers - groups - computers - 1)
        # Memberships are spread by i % groups and (7 i + 3) % groups: 7 must be invertible modulo groups.
        while groups % 7 == 0:
            groups += 1
        return cls(users, computers, groups, ous, gpos, containers)

    def user(self, i: int) -> str:
        return f"{DOMAIN_SID}-{FIRST_RID + i}"

    def computer(self, i: int) -> str:
        return f"{DOMAIN_SID}-{FIRST_RID + self.users + self.computer_rid_offset + i}"

    def group(self, i: int) -> str:
        return f"{DOMAIN_SID}-{FIRST_RID + self.users + self.computers + i}"

    def ou(self, i: int) -> str:
        return f"0B5E{i:04X}-6B36-4E4A-9F61-{i:012X}"

    def gpo(self, i: int) -> str:
        return f"6AC1{i:04X}-31F1-4C1A-8B0E-{i:012X}"

    def container(self, i: int) -> str:
        return f"C0E7{i:04X}-9A2D-4B9B-A4F5-{i:012X}"


def _ace(principal: str, kind: str, right: str, inherited: bool) -> dict[str, Any]:
    ace = {"PrincipalSID": principal, "PrincipalType": kind, "RightName": right, "IsInherited": inherited}
    if inherited:
        ace["InheritanceHash"] = f"{zlib.crc32(f'{principal}/{right}'.encode()):08X}"
    return ace


def _aces(layout: Layout, i: int) -> list[dict[str, Any]]:
    """Six ACEs: the defaults every object carries, and one delegation to a help-desk group."""
    helpdesk = layout.group(i % min(layout.groups, 50))
    return [
        _ace(DOMAIN_ADMINS, "Group", "Owns", False),
        _ace(DOMAIN_ADMINS, "Group", "GenericAll", False),
        _ace(ACCOUNT_OPERATORS, "Group", "GenericAll", False),
        _ace(ENTERPRISE_ADMINS, "Group", "GenericAll", True),
        _ace(ADMINISTRATORS, "Group", "WriteDacl", True),
        _ace(helpdesk, "Group", ("ForceChangePassword", "GenericWrite", "AddMember")[i % 3], i % 2 == 0),
    ]


def _base(name: str, i: int) -> dict[str, Any]:
    return {
        "domain": DOMAIN,
        "name": f"{name}@{DOMAIN}",
        "distinguishedname": f"CN={name},OU=OU{i % 100},DC=BENCH,DC=LOCAL",
        "domainsid": DOMAIN_SID,
        "highvalue": False,
        "description": None if i % 3 else f"synthetic object {i}",
        "whencreated": 1600000000 + i,
    }


def _contained(layout: Layout, i: int) -> dict[str, str]:
    return {"ObjectIdentifier": layout.ou(i % layout.ous), "ObjectType": "OU"}


def _common(layout: Layout, objectid: str, i: int) -> dict[str, Any]:
    return {"ObjectIdentifier": objectid, "Aces": _aces(layout, i), "IsDeleted": False,
            "IsACLProtected": False, "ContainedBy": _contained(layout, i)}  # fmt: skip


def users(layout: Layout) -> Iterator[dict[str, Any]]:
    for i in range(layout.users):
        properties = _base(f"USER{i}", i) | {
            "samaccountname": f"user{i}", "sensitive": False, "dontreqpreauth": i % 500 == 0,
            "passwordnotreqd": False, "unconstraineddelegation": False, "pwdneverexpires": i % 7 == 0,
            "enabled": i % 10 != 0, "trustedtoauth": False, "lastlogon": 1700000000 + i,
            "lastlogontimestamp": 1700000000 + i, "pwdlastset": 1690000000 + i,
            "serviceprincipalnames": [f"HTTP/web{i}.bench.local"] if i % 250 == 0 else [],
            "hasspn": i % 250 == 0, "displayname": f"User {i}", "email": f"user{i}@bench.local",
            "title": None, "homedirectory": None, "userpassword": None, "unixpassword": None,
            "unicodepassword": None, "sfupassword": None, "logonscript": None, "admincount": i % 1000 == 0,
            "sidhistory": [],
        }  # fmt: skip
        yield {"Properties": properties, "AllowedToDelegate": [], "PrimaryGroupSID": DOMAIN_USERS,
               "HasSIDHistory": [], "SPNTargets": []} | _common(layout, layout.user(i), i)  # fmt: skip


def _session(user: str, computer: str) -> dict[str, str]:
    return {"UserSID": user, "ComputerSID": computer}


def _local_group(computer: str, rid: int, members: list[tuple[str, str]]) -> dict[str, Any]:
    return {"ObjectIdentifier": f"{computer}-{rid}", "Name": f"LOCALGROUP{rid}", "Collected": True,
            "Results": [{"ObjectIdentifier": oid, "ObjectType": kind} for oid, kind in members],
            "LocalNames": [], "FailureReason": None}  # fmt: skip


def computers(layout: Layout) -> Iterator[dict[str, Any]]:
    for i in range(layout.computers):
        objectid = layout.computer(i)
        properties = _base(f"WS{i}.{DOMAIN}", i) | {
            "samaccountname": f"WS{i}$", "haslaps": i % 2 == 0, "enabled": True, "unconstraineddelegation": False,
            "trustedtoauth": False, "lastlogon": 1700000000 + i, "lastlogontimestamp": 1700000000 + i,
            "pwdlastset": 1690000000 + i, "serviceprincipalnames": [f"HOST/WS{i}", f"HOST/WS{i}.{DOMAIN}"],
            "operatingsystem": "Windows 11 Enterprise", "sidhistory": [],
        }  # fmt: skip
        sessions = [_session(layout.user((3 * i + k) % layout.users), objectid) for k in range(2)]
        admins = [(DOMAIN_ADMINS, "Group"), (layout.group(i % layout.groups), "Group")]
        remote = [(layout.group((i + 1) % layout.groups), "Group")]
        yield {
            "Properties": properties, "PrimaryGroupSID": DOMAIN_COMPUTERS, "AllowedToDelegate": [],
            "AllowedToAct": [], "HasSIDHistory": [], "DumpSMSAPassword": [],
            "Sessions": {"Results": sessions, "Collected": True, "FailureReason": None},
            "PrivilegedSessions": {"Results": [], "Collected": True, "FailureReason": None},
            "RegistrySessions": {"Results": [], "Collected": True, "FailureReason": None},
            "LocalGroups": [_local_group(objectid, 544, admins), _local_group(objectid, 555, remote)],
            "UserRights": [], "Status": None,
            "DCRegistryData": {"CertificateMappingMethods": None, "StrongCertificateBindingEnforcement": None},
        } | _common(layout, objectid, i)  # fmt: skip


def _progression(start: int, step: int, below: int) -> range:
    return range(start, below, step)


def groups(layout: Layout) -> Iterator[dict[str, Any]]:
    """Each user is in groups i % G and (7 i + 3) % G; group j nests in group (j - 1) // 4."""
    g = layout.groups
    inverse_of_7 = pow(7, -1, g)
    for j in range(g):
        members = [{"ObjectIdentifier": layout.user(i), "ObjectType": "User"}
                   for i in _progression(j, g, layout.users)]  # fmt: skip
        first = (inverse_of_7 * (j - 3)) % g
        members += [{"ObjectIdentifier": layout.user(i), "ObjectType": "User"}
                    for i in _progression(first, g, layout.users)]  # fmt: skip
        members += [{"ObjectIdentifier": layout.group(child), "ObjectType": "Group"}
                    for child in range(4 * j + 1, min(4 * j + 5, g))]  # fmt: skip
        properties = _base(f"GROUP{j}", j) | {"samaccountname": f"group{j}", "admincount": False}
        yield {"Properties": properties, "Members": members, "HasSIDHistory": []} | _common(layout, layout.group(j), j)


def _gpo_changes() -> dict[str, list[Any]]:
    return {"LocalAdmins": [], "RemoteDesktopUsers": [], "DcomUsers": [], "PSRemoteUsers": [], "AffectedComputers": []}


def _typed(objectid: str, kind: str) -> dict[str, str]:
    return {"ObjectIdentifier": objectid, "ObjectType": kind}


def ous(layout: Layout) -> Iterator[dict[str, Any]]:
    """OU i holds object i of each kind modulo the OU count (as `ContainedBy` says from the other side), and
    its GPO makes a help-desk group local administrator of its computers."""
    for i in range(layout.ous):
        properties = _base(f"OU{i}", i) | {"blocksinheritance": False}
        links = [{"IsEnforced": i % 5 == 0, "GUID": layout.gpo(i % layout.gpos)}]
        computers = [_typed(layout.computer(n), "Computer") for n in range(i, layout.computers, layout.ous)]
        children = [_typed(layout.user(n), "User") for n in range(i, layout.users, layout.ous)]
        children += [_typed(layout.group(n), "Group") for n in range(i, layout.groups, layout.ous)]
        changes = _gpo_changes() | {"AffectedComputers": computers,
                                    "LocalAdmins": [_typed(layout.group(i % min(layout.groups, 50)), "Group")]}
        record = {"Properties": properties, "Links": links, "ChildObjects": children + computers,
                  "GPOChanges": changes}  # fmt: skip
        record |= _common(layout, layout.ou(i), i)
        record["ContainedBy"] = {"ObjectIdentifier": DOMAIN_SID, "ObjectType": "Domain"}
        yield record


def gpos(layout: Layout) -> Iterator[dict[str, Any]]:
    for i in range(layout.gpos):
        properties = _base(f"GPO{i}", i) | {"gpcpath": f"\\\\{DOMAIN}\\SYSVOL\\{DOMAIN}\\POLICIES\\{{{layout.gpo(i)}}}"}
        yield {"Properties": properties} | _common(layout, layout.gpo(i), i) | {"ContainedBy": None}


def containers(layout: Layout) -> Iterator[dict[str, Any]]:
    for i in range(layout.containers):
        yield {"Properties": _base(f"CONTAINER{i}", i), "ChildObjects": []} | _common(layout, layout.container(i), i)


def domains(layout: Layout) -> Iterator[dict[str, Any]]:
    properties = _base(DOMAIN, 0) | {"name": DOMAIN, "highvalue": True, "functionallevel": "2016"}
    yield {
        "Properties": properties, "Trusts": [], "GPOChanges": _gpo_changes(),
        "Links": [{"IsEnforced": False, "GUID": layout.gpo(0)}],
        "ChildObjects": [{"ObjectIdentifier": layout.ou(i), "ObjectType": "OU"} for i in range(layout.ous)],
        "ObjectIdentifier": DOMAIN_SID, "Aces": _aces(layout, 0), "IsDeleted": False, "IsACLProtected": False,
        "ContainedBy": None,
    }  # fmt: skip


# In the order SharpHound writes them; every file is its own ingest task.
FILES = {"domains": domains, "ous": ous, "gpos": gpos, "containers": containers, "groups": groups,
         "users": users, "computers": computers}  # fmt: skip


def write_new_computers(layout: Layout, count: int, directory: Path) -> list[Path]:
    """Two files of `count` computers each that a stored collection of `layout` does not hold: their sessions, local
    groups, ACEs and OUs name the stored users and groups, so their edges go into the stored indexes at the places a
    collection of that size would put them (`--into`: what a large file costs per edge at that size). The first file
    fills the buffer cache as an ingest running for a while would have; the second shows that state's cost."""
    shifted = dataclasses.replace(layout, computer_rid_offset=10 * (layout.users + layout.computers + layout.groups))
    records = computers(shifted)
    paths = [directory / f"2026010100000{part}_computers.json" for part in range(2)]
    for path in paths:
        _write_file(path, "computers", itertools.islice(records, count))
    return paths


def write_collection(layout: Layout, directory: Path) -> list[Path]:
    """Stream every file to disk one record at a time, meta last as SharpHound does."""
    paths = []
    for kind, records in FILES.items():
        path = directory / f"20260101000000_{kind}.json"
        _write_file(path, kind, records(layout))
        paths.append(path)
    return paths


def _write_file(path: Path, kind: str, records: Iterator[dict[str, Any]]) -> None:
    count = 0
    with path.open("wb") as out:
        out.write(b'{"data":[')
        for record in records:
            if count:
                out.write(b",")
            out.write(orjson.dumps(record))
            count += 1
        meta = {"methods": 521215, "type": kind, "count": count, "version": 6}
        out.write(b'],"meta":' + orjson.dumps(meta) + b"}")
