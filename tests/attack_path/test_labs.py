"""Findings of the two SharpHound labs of ../shared/data, checked against facts read from the collector files."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from houndgraph.db import Database
from tests.attack_path.graphs import FINDING_TABLES
from tests.labs import TESTLAB, clear, load_labs, merged, records

TIER_ZERO_RIDS = ("-512", "-516", "-519", "-544", "-500")


@pytest.fixture(scope="module")
def labs(database: Database) -> Iterator[str]:
    load_labs(database)
    (domain,) = records(TESTLAB, "domains")
    yield domain["ObjectIdentifier"]
    clear(database)
    with database.connect_raw(autocommit=True) as conn:
        conn.execute(f"TRUNCATE {FINDING_TABLES}")


def pairs(admin: httpx.Client, domain: str, finding: str) -> set[tuple[str, str]]:
    response = admin.get(f"/api/v2/domains/{domain}/details", params={"finding": finding, "limit": 1000})
    assert response.status_code == 200, response.text
    return {(row["FromPrincipal"], row["ToPrincipal"]) for row in response.json()["data"]}


def test_testlab_findings_follow_the_collected_rights_and_sessions(admin: httpx.Client, labs: str) -> None:
    domain = labs
    computers = merged(TESTLAB, "computers")
    # Tier Zero logons: the computers where the domain's Administrator (-500) has a session.
    expected_logins = {(computer, session["UserSID"]) for computer, record in computers.items()
                       for session in (record.get("Sessions") or {}).get("Results", [])
                       if session["UserSID"].endswith("-500")}
    assert expected_logins and pairs(admin, domain, "T0Logins") == expected_logins
    # Half of DCSync held by principals outside Tier Zero.
    (record,) = records(TESTLAB, "domains")
    expected_half = {(ace["PrincipalSID"], domain) for ace in record["Aces"]
                     if ace["RightName"] == "GetChangesAll" and not ace["PrincipalSID"].endswith(TIER_ZERO_RIDS)}
    assert expected_half and pairs(admin, domain, "T0GetChangesAll") == expected_half
    # Domain Users in a local Remote Desktop Users group, Everyone in Distributed COM Users.
    local = {(member["ObjectIdentifier"], computer, group["Name"].split("@")[0])
             for computer, record in computers.items() for group in record.get("LocalGroups") or []
             for member in group.get("Results", [])}
    rdp = {(member, computer) for member, computer, group in local
           if group == "REMOTE DESKTOP USERS" and member.endswith("-513")}
    dcom = {(member, computer) for member, computer, group in local
            if group == "DISTRIBUTED COM USERS" and member.endswith("-S-1-1-0")}
    assert rdp and pairs(admin, domain, "LargeDefaultGroupsRDP") == rdp
    assert dcom and pairs(admin, domain, "LargeDefaultGroupsDCOM") == dcom
    available = admin.get(f"/api/v2/domains/{domain}/available-types").json()["data"]
    assert {"T0Logins", "T0GetChangesAll", "LargeDefaultGroupsRDP", "NonT0DCSyncers"} <= set(available)
    # No Azure type in an AD domain.
    assert not [name for name in available if name.startswith("T0AZ")]
