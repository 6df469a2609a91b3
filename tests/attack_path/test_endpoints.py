"""Findings over HTTP on a hand-built domain: types, findings and their impact, acceptance, history, posture.

Responses are also read with the official SDK's models (blood-hound-python-client), which name the keys
BloodHound clients expect.
"""

from __future__ import annotations

import csv
import io
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from blood_hound_api_client.models import (
    GetPostureStatsResponse200,
    ListAttackPathSparklineValuesResponse200,
    ListAttackPathTypesResponse200,
    ListDomainAttackPathsDetailsResponse200Type0,
    ListDomainAttackPathsDetailsResponse200Type1,
)

from houndgraph.db import Database
from tests.attack_path.graphs import ENABLED_OUTSIDE_TIER_ZERO, FINDING_TABLES, SID, load, reaching
from tests.factories import user_with_role

EXPECTED_TYPES = ["ComputersWithoutLAPS", "Kerberoasting", "T0GenericAll", "T0Logins"]
PROPERTY_MAPS = ("FromPrincipalProps", "ToPrincipalProps", "RelProps", "Props")


def _as_the_sdk_reads(key: str, value: Any) -> Any:
    if key in PROPERTY_MAPS:
        return {}
    if key == "ComboGraphRelationID":
        # SDK defect "nullable fields" (tests/test_official_sdk.py): it reads null.Int64 as the Go struct,
        # where the reference (and houndgraph) send the plain value or null.
        return {"int64": value or 0, "valid": value is not None}
    return value


def sdk(model: Any, body: dict[str, Any]) -> Any:
    """The body read by an SDK model. Its property maps are left empty: the SDK, generated from the spec's
    `additionalProperties: object`, expects every property value to be an object (see tests/openapi.py)."""
    items = [{key: _as_the_sdk_reads(key, value) for key, value in item.items()}
             for item in body.get("data", [])] if isinstance(body.get("data"), list) else body.get("data")
    return model.from_dict({**body, "data": items})


@pytest.fixture
def domain(database: Database, tmp_path: Path) -> Iterator[str]:
    load(database, tmp_path)
    yield SID
    with database.connect_raw(autocommit=True) as conn:
        conn.execute(f"TRUNCATE edge, node, {FINDING_TABLES} RESTART IDENTITY CASCADE")


def details(admin: httpx.Client, finding: str, **params: str) -> dict:
    response = admin.get(f"/api/v2/domains/{SID}/details", params={"finding": finding, **params})
    assert response.status_code == 200, response.text
    return response.json()


def test_types_come_with_their_explanation(admin: httpx.Client) -> None:
    response = admin.get("/api/v2/attack-path-types")
    assert response.status_code == 200
    body = response.json()
    parsed = ListAttackPathTypesResponse200.from_dict(body)
    assert "T0GenericAll" in parsed.data and "NonT0DCSyncers" in parsed.data and parsed.data == sorted(parsed.data)
    explained = {item["name"]: item for item in body["types"]}
    assert list(explained) == parsed.data
    assert all(item["what"] and item["why"] and item["remediation"] and item["references"]
               for item in explained.values())
    only = admin.get("/api/v2/attack-path-types", params={"finding": "eq:Kerberoasting"}).json()
    assert only["data"] == ["Kerberoasting"] and only["types"][0]["family"] == "Configuration"
    reversed_names = admin.get("/api/v2/attack-path-types", params={"sort_by": "-finding"}).json()["data"]
    assert reversed_names == sorted(parsed.data, reverse=True)
    assert admin.get("/api/v2/attack-path-types", params={"sort_by": "name"}).status_code == 400


def test_each_built_in_finding_is_listed_and_nothing_else(admin: httpx.Client, domain: str) -> None:
    available = admin.get(f"/api/v2/domains/{domain}/available-types")
    assert available.status_code == 200 and available.json()["data"] == EXPECTED_TYPES
    generic_all = details(admin, "T0GenericAll")
    relationship = sdk(ListDomainAttackPathsDetailsResponse200Type0, generic_all)
    assert generic_all["count"] == 1 and len(relationship.data) == 1
    assert (relationship.data[0].from_principal, relationship.data[0].principal_hash) == (
        f"{SID}-1101", generic_all["data"][0]["PrincipalHash"])
    (item,) = generic_all["data"]
    assert (item["FromPrincipal"], item["ToPrincipal"]) == (f"{SID}-1101", f"{SID}-512")
    assert (item["FromPrincipalKind"], item["ToPrincipalKind"]) == ("User", "Group")
    assert item["FromPrincipalProps"]["name"] == "HAL@HOUND.LOCAL" and item["Finding"] == "T0GenericAll"
    assert item["DomainSID"] == SID and item["Accepted"] is False and isinstance(item["ComboGraphRelationID"], int)
    sessions = details(admin, "T0Logins")["data"]
    assert [(row["FromPrincipal"], row["ToPrincipal"]) for row in sessions] == [(f"{SID}-2001", f"{SID}-500")]
    roastable = details(admin, "Kerberoasting")
    listed = sdk(ListDomainAttackPathsDetailsResponse200Type1, roastable)
    # Eve has an SPN too, but is not Tier Zero.
    assert [row.principal for row in listed.data] == [f"{SID}-500"] and listed.data[0].principal_kind == "User"
    assert [row["Principal"] for row in details(admin, "ComputersWithoutLAPS")["data"]] == [f"{SID}-2001"]
    assert details(admin, "ASREPRoasting")["count"] == 0


def test_impact_is_the_enabled_principals_outside_tier_zero_that_reach_the_principal(admin: httpx.Client,
                                                                                      domain: str) -> None:
    eligible = len(ENABLED_OUTSIDE_TIER_ZERO)
    for finding, principal in (("T0GenericAll", f"{SID}-1101"), ("T0Logins", f"{SID}-2001")):
        (item,) = details(admin, finding)["data"]
        expected = len(reaching(principal) & ENABLED_OUTSIDE_TIER_ZERO)
        assert item["ImpactCount"] == expected and item["ImpactPercentage"] == pytest.approx(expected / eligible)
    # Hal, Ann and Ben; Cid is disabled.
    assert details(admin, "T0GenericAll")["data"][0]["ImpactCount"] == 3
    # Anyone can roast a ticket: every eligible principal.
    assert details(admin, "Kerberoasting")["data"][0]["ImpactCount"] == eligible
    findings = admin.get(f"/api/v2/domains/{domain}/attack-path-findings").json()
    assert findings["count"] == 4
    assert [row["ImpactCount"] for row in findings["data"]] == sorted(
        (row["ImpactCount"] for row in findings["data"]), reverse=True)
    page = admin.get(f"/api/v2/domains/{domain}/attack-path-findings",
                     params={"sort_by": "impact", "skip": 1, "limit": 2}).json()
    assert page["count"] == 4 and len(page["data"]) == 2 and page["skip"] == 1
    assert page["data"][0]["ImpactCount"] <= page["data"][1]["ImpactCount"]
    only = admin.get(f"/api/v2/domains/{domain}/attack-path-findings", params={"finding": "T0Logins"}).json()
    assert [row["Finding"] for row in only["data"]] == ["T0Logins"]


def test_posture_counts_exposure_and_tier_zero(admin: httpx.Client, domain: str) -> None:
    response = admin.get("/api/v2/posture-stats")
    assert response.status_code == 200
    parsed = GetPostureStatsResponse200.from_dict(response.json())
    (stat,) = parsed.data
    # Everyone eligible but Eve has a path into Tier Zero.
    assert stat.domain_sid == SID and stat.exposure_index == pytest.approx(80.0)
    # The domain, Domain Admins and Administrator.
    assert stat.tier_zero_count == 3


def test_bad_requests_and_unknown_domains(admin: httpx.Client, domain: str) -> None:
    assert admin.get(f"/api/v2/domains/{domain}/details").status_code == 400
    assert admin.get(f"/api/v2/domains/{domain}/details", params={"finding": "NoSuchType"}).status_code == 400
    assert admin.get(f"/api/v2/domains/{domain}/details",
                     params={"finding": "T0GenericAll", "bogus": "eq:1"}).status_code == 400
    assert admin.get(f"/api/v2/domains/{domain}/attack-path-findings",
                     params={"filterAccepted": "maybe"}).status_code == 400
    assert admin.get("/api/v2/domains/S-1-5-21-404/available-types").status_code == 404
    assert admin.get(f"/api/v2/domains/{domain}/sparkline").status_code == 400


def _runs(admin: httpx.Client) -> int:
    return admin.get("/api/v2/posture-stats").json()["count"]


def test_acceptance_keeps_the_finding_listed_and_out_of_the_counts(admin: httpx.Client, domain: str) -> None:
    finding = details(admin, "T0GenericAll")["data"][0]
    until = (datetime.now(UTC) + timedelta(days=7)).replace(microsecond=0)
    response = admin.put(f"/api/v2/attack-paths/{finding['id']}/acceptance",
                         json={"risk_type": "T0GenericAll", "accepted": True, "accept_until": until.isoformat()})
    assert response.status_code == 200, response.text
    body = response.json()["data"]
    assert body["Accepted"] is True and datetime.fromisoformat(body["AcceptedUntil"]) == until
    assert details(admin, "T0GenericAll", filterAccepted="unaccepted")["count"] == 0
    assert details(admin, "T0GenericAll", Accepted="eq:true")["count"] == 1
    assert details(admin, "T0GenericAll")["data"][0]["Accepted"] is True
    # Another run: the accepted finding stays listed, accepted, and leaves the counts.
    assert admin.put("/api/v2/attack-paths").status_code == 202
    deadline = time.monotonic() + 120
    while _runs(admin) < 2:
        assert time.monotonic() < deadline, "the requested analysis did not run"
        time.sleep(0.2)
    again = details(admin, "T0GenericAll")["data"]
    assert [row["id"] for row in again] == [finding["id"]] and again[0]["Accepted"] is True
    sparkline = admin.get(f"/api/v2/domains/{domain}/sparkline", params={"finding": "T0GenericAll"})
    assert sparkline.status_code == 200
    points = ListAttackPathSparklineValuesResponse200.from_dict(sparkline.json()).data
    assert [(point.finding_count, point.impacted_asset_count) for point in points] == [(1, 3), (0, 0)]
    assert points[0].composite_risk == pytest.approx(60.0) and points[1].composite_risk == 0
    # Withdrawn: counted again from the next run on, and listed as not accepted now.
    withdrawn = admin.put(f"/api/v2/attack-paths/{finding['id']}/acceptance", json={"accepted": False})
    assert withdrawn.status_code == 200 and withdrawn.json()["data"]["Accepted"] is False


def test_a_reanalysis_with_nothing_changed_shows_its_time_as_each_findings_last_update(admin: httpx.Client,
                                                                                          domain: str) -> None:
    before = details(admin, "T0GenericAll")["data"] + details(admin, "Kerberoasting")["data"]
    first = max(datetime.fromisoformat(row["updated_at"]) for row in before)
    assert admin.put("/api/v2/attack-paths").status_code == 202
    deadline = time.monotonic() + 120
    while _runs(admin) < 2:
        assert time.monotonic() < deadline, "the requested analysis did not run"
        time.sleep(0.2)
    second = max(datetime.fromisoformat(row["created_at"]) for row in
                 admin.get("/api/v2/posture-stats").json()["data"])
    assert second > first
    after = details(admin, "T0GenericAll")["data"] + details(admin, "Kerberoasting")["data"]
    assert sorted(row["id"] for row in after) == sorted(row["id"] for row in before)
    assert {datetime.fromisoformat(row["updated_at"]) for row in after} == {second}
    # Filtered and sorted by that time too.
    since = details(admin, "T0GenericAll", updated_at=f"gt:{first.isoformat()}")
    assert since["count"] == len(details(admin, "T0GenericAll")["data"]) > 0
    assert details(admin, "T0GenericAll", updated_at=f"lte:{first.isoformat()}")["count"] == 0


def test_acceptance_is_checked(admin: httpx.Client, domain: str) -> None:
    finding = details(admin, "Kerberoasting")["data"][0]
    path = f"/api/v2/attack-paths/{finding['id']}/acceptance"
    past = (datetime.now(UTC) - timedelta(days=1)).isoformat()
    assert admin.put(path, json={"accepted": True, "accept_until": past}).status_code == 400
    assert admin.put(path, json={"risk_type": "T0GenericAll", "accepted": True}).status_code == 400
    assert admin.put("/api/v2/attack-paths/999999/acceptance", json={"accepted": True}).status_code == 404
    forever = admin.put(path, json={"accepted": True})
    assert forever.status_code == 200 and forever.json()["data"]["Accepted"] is True
    _, headers = user_with_role(admin, "Read-Only")
    with httpx.Client(base_url=str(admin.base_url), headers=headers) as reader:
        assert reader.get(f"/api/v2/domains/{domain}/available-types").status_code == 200
        assert reader.put(path, json={"accepted": False}).status_code == 403
        assert reader.put("/api/v2/attack-paths").status_code == 403


def test_csv_export_with_the_reference_columns(admin: httpx.Client, domain: str) -> None:
    response = admin.get(f"/api/v2/domains/{domain}/attack-path-findings", headers={"Accept": "text/csv"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert len(rows) == 4 and rows[0]["impact_count"] == "5"
    generic_all = next(row for row in rows if row["finding_type"] == "T0GenericAll")
    assert (generic_all["from_principal_name"], generic_all["to_principal"]) == ("HAL@HOUND.LOCAL", f"{SID}-512")
    listed = admin.get(f"/api/v2/domains/{domain}/details", params={"finding": "Kerberoasting", "Accept": "text/csv"})
    header = listed.text.splitlines()[0]
    assert header.startswith("id,finding_type,impact_count,impact_percentage,domain,domain_sid,principal_name")
    assert f"{SID}-500" in listed.text


def test_the_posture_report_downloads_as_html(admin: httpx.Client, domain: str) -> None:
    response = admin.get("/api/v2/attack-paths/report", params={"environment": domain.lower(), "days": "30"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert re.fullmatch(r'attachment; filename="houndgraph-report-hound\.local-\d{4}-\d{2}-\d{2}\.html"',
                        response.headers["content-disposition"])
    assert "Attack-path posture: HOUND.LOCAL" in response.text and 'data-finding="Kerberoasting"' in response.text
    everything = admin.get("/api/v2/attack-paths/report")
    assert everything.status_code == 200 and f'data-environment="{SID}"' in everything.text


@pytest.mark.parametrize(("params", "status", "message"), [
    ({"days": "0"}, 400, "days must be a whole number from 1 to 3650"),
    ({"days": "soon"}, 400, "days must be a whole number from 1 to 3650"),
    ({"environment": "S-1-5-21-0-0-0"}, 404, "resource not found"),
])
def test_a_bad_report_request_answers_the_error(admin: httpx.Client, domain: str, params: dict[str, str],
                                                status: int, message: str) -> None:
    response = admin.get("/api/v2/attack-paths/report", params=params)
    assert response.status_code == status, response.text
    assert response.json()["errors"][0]["message"] == message


def test_who_accepted_a_risk_and_why_is_in_the_audit_log(admin: httpx.Client, domain: str) -> None:
    finding = details(admin, "Kerberoasting")["data"][0]
    path = f"/api/v2/attack-paths/{finding['id']}/acceptance"
    reason = "Service account with a 64-character password rotated monthly"
    accepted = admin.put(path, json={"accepted": True, "accept_until": "2099-06-30T00:00:00Z", "reason": reason})
    assert accepted.status_code == 200, accepted.text
    assert admin.put(path, json={"accepted": True, "reason": "x" * 1001}).status_code == 400
    logs = admin.get("/api/v2/audit", params={"action": "eq:UpdateRiskAcceptance", "status": "eq:success"})
    entry = next(log for log in logs.json()["data"]["logs"] if log["fields"].get("reason") == reason)
    assert entry["actor_name"] == "admin"
    assert entry["fields"]["attack_path_id"] == str(finding["id"]) and entry["fields"]["finding"] == "Kerberoasting"
    assert entry["fields"]["accepted_until"].startswith("2099-06-30") and entry["fields"]["domain_sid"] == domain
