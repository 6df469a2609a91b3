"""A small SharpHound lab with Active Directory sites, as SharpHound v2.17 writes them.

No site sample exists in ../shared/data, so the documents are built here after the collector's own types:
the `sites`, `siteservers` and `sitesubnets` file types are BloodHound's `packages/go/chow/ingest/ingest.go`
(`DataTypeSite` ...); a record is SharpHoundCommon's `OutputBase` (ObjectIdentifier, Properties, Aces,
IsDeleted, IsACLProtected, ContainedBy); a Site adds `Links` (GPLink: GUID, IsEnforced) and a SiteServer the
computer its `serverReference` names (SharpHoundCommon `OutputTypes/SiteServer.cs` spells the field
`SeverIs`); servers and subnets name their site as `ContainedBy` (`Processors/SiteProcessor.cs`), and only a
site carries ACEs (the ACL processor returns none for server and subnet objects).

Two sites: HQ (two subnets, the server object of the domain controller DC01, two linked GPOs, an ACL) and
BRANCH (one subnet, the server object of DC02, which is no domain controller, one linked GPO).
"""

from __future__ import annotations

import json
from typing import Any

from tests.file_upload.helpers import zipped

DOMAIN = "SITES.LOCAL"
SID = "S-1-5-21-4100-4200-4300"
DC01, DC02, WORKSTATION = f"{SID}-1001", f"{SID}-1002", f"{SID}-1103"
ALICE, BOB, SITE_ADMINS = f"{SID}-1105", f"{SID}-1106", f"{SID}-1107"
GPO_HQ = "3A1B2C3D-0000-4000-8000-000000000001"
GPO_ALL = "3A1B2C3D-0000-4000-8000-000000000002"
HQ = "5E7E0001-AAAA-4BBB-8CCC-000000000001"
BRANCH = "5E7E0002-AAAA-4BBB-8CCC-000000000002"
HQ_SERVER = "5E7E1001-AAAA-4BBB-8CCC-000000000001"
BRANCH_SERVER = "5E7E1002-AAAA-4BBB-8CCC-000000000002"
HQ_SUBNETS = ("5E7E2001-AAAA-4BBB-8CCC-000000000001", "5E7E2002-AAAA-4BBB-8CCC-000000000002")
BRANCH_SUBNET = "5E7E2003-AAAA-4BBB-8CCC-000000000003"
CONFIGURATION = "CN=SITES,CN=CONFIGURATION,DC=SITES,DC=LOCAL"


def _principal(object_id: str, kind: str) -> dict[str, str]:
    return {"ObjectIdentifier": object_id, "ObjectType": kind}


def _properties(name: str, dn: str, **extra: Any) -> dict[str, Any]:
    return {"domain": DOMAIN, "domainsid": SID, "name": f"{name}@{DOMAIN}", "distinguishedname": dn,
            "whencreated": 1700000000, "isaclprotected": False, **extra}


def _record(object_id: str, properties: dict[str, Any], *, contained_by: dict[str, str] | None = None,
            aces: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    return {"ObjectIdentifier": object_id, "Properties": properties, "Aces": aces or [], "IsDeleted": False,
            "IsACLProtected": False, "ContainedBy": contained_by, **extra}


def _ace(principal: str, kind: str, right: str) -> dict[str, Any]:
    return {"PrincipalSID": principal, "PrincipalType": kind, "RightName": right, "IsInherited": False}


def _document(data_type: str, data: list[dict[str, Any]]) -> bytes:
    meta = {"methods": 0, "type": data_type, "count": len(data), "version": 6, "collectorversion": "2.17.0"}
    return json.dumps({"data": data, "meta": meta}).encode()


def _site(object_id: str, name: str, links: list[tuple[str, bool]], aces: list[dict[str, Any]]) -> dict[str, Any]:
    return _record(object_id, _properties(name, f"CN={name},{CONFIGURATION}", description=f"the {name} site"),
                   aces=aces, Links=[{"GUID": guid, "IsEnforced": enforced} for guid, enforced in links])


def _server(object_id: str, name: str, site: str, site_name: str, computer: str, field: str) -> dict[str, Any]:
    dn = f"CN={name},CN=SERVERS,CN={site_name},{CONFIGURATION}"
    return _record(object_id, _properties(name, dn), contained_by=_principal(site, "Site"),
                   **{field: _principal(computer, "Computer")})


def _subnet(object_id: str, cidr: str, site: str, site_name: str) -> dict[str, Any]:
    dn = f"CN={cidr},CN=SUBNETS,{CONFIGURATION}"
    return _record(object_id, _properties(cidr, dn, siteobject=f"CN={site_name},{CONFIGURATION}"),
                   contained_by=_principal(site, "Site"))


def _computer(object_id: str, name: str, *, dc: bool = False) -> dict[str, Any]:
    properties = _properties(name, f"CN={name},DC=SITES,DC=LOCAL", samaccountname=f"{name}$")
    properties["name"] = f"{name}.{DOMAIN}"  # computers are named by host name, not name@domain
    return _record(object_id, properties, IsDC=dc, DomainSID=SID)


def documents(server_field: str = "SeverIs") -> dict[str, bytes]:
    """The lab's collector files by name; `server_field` is how the site servers name their computer."""
    hq_aces = [_ace(ALICE, "User", "GenericAll"), _ace(SITE_ADMINS, "Group", "WriteDacl")]
    # DC01 is a domain controller; DC02 is a server object's computer that is not (yet) one.
    computers = [_computer(DC01, "DC01", dc=True), _computer(DC02, "DC02"), _computer(WORKSTATION, "WS01")]
    return {
        "domains.json": _document("domains", [_record(SID, {**_properties(DOMAIN, "DC=SITES,DC=LOCAL"),
                                                             "name": DOMAIN})]),
        "computers.json": _document("computers", computers),
        "users.json": _document("users", [_record(ALICE, _properties("ALICE", "CN=ALICE,DC=SITES,DC=LOCAL")),
                                          _record(BOB, _properties("BOB", "CN=BOB,DC=SITES,DC=LOCAL"))]),
        "groups.json": _document("groups", [_record(SITE_ADMINS, _properties("SITE ADMINS", "CN=SITE ADMINS"),
                                                    Members=[_principal(BOB, "User")])]),
        "gpos.json": _document("gpos", [_record(GPO_HQ, _properties("HQ POLICY", "CN={HQ}")),
                                        _record(GPO_ALL, _properties("ALL SITES POLICY", "CN={ALL}"))]),
        "sites.json": _document("sites", [
            _site(HQ, "HQ", [(GPO_HQ, True), (GPO_ALL, False)], hq_aces),
            _site(BRANCH, "BRANCH", [(GPO_ALL, False)], []),
        ]),
        "siteservers.json": _document("siteservers", [
            _server(HQ_SERVER, "DC01", HQ, "HQ", DC01, server_field),
            _server(BRANCH_SERVER, "DC02", BRANCH, "BRANCH", DC02, server_field),
        ]),
        "sitesubnets.json": _document("sitesubnets", [
            _subnet(HQ_SUBNETS[0], "10.0.0.0/24", HQ, "HQ"),
            _subnet(HQ_SUBNETS[1], "10.0.1.0/24", HQ, "HQ"),
            _subnet(BRANCH_SUBNET, "10.1.0.0/24", BRANCH, "BRANCH"),
        ]),
    }


def archive(server_field: str = "SeverIs") -> bytes:
    """The lab as one zip archive, as SharpHound uploads it."""
    return zipped(documents(server_field))
