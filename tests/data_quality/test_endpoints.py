"""GET data-quality stats (platform, AD domain, Azure tenant) and GET completeness, over HTTP."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import psycopg
import pytest

from houndgraph.db import Database
from tests.conftest import LiveServer
from tests.factories import account
from tests.openapi import assert_matches_spec

NOW = datetime.now(UTC)
DOMAIN = "S-1-5-21-10-20-30"
TENANT = "6C12B0B0-B2CC-4A73-8252-0B94BFCA2145"
PLATFORM_PATH = "/api/v2/platform/{platform_id}/data-quality-stats"
DOMAIN_PATH = "/api/v2/ad-domains/{domain_id}/data-quality-stats"
TENANT_PATH = "/api/v2/azure-tenants/{tenant_id}/data-quality-stats"
TABLES = ("ad_data_quality_stats", "ad_data_quality_aggregations", "azure_data_quality_stats",
          "azure_data_quality_aggregations")


@pytest.fixture
def rows(database: Database) -> Iterator[psycopg.Connection]:
    """Three AD aggregates (now - 1 day, now - 10 days, now - 40 days), per-domain rows for two domains,
    an Azure tenant row and aggregate; the tables are emptied before and after."""
    with database.connect_raw(autocommit=True) as conn:
        conn.execute(f"TRUNCATE {', '.join(TABLES)}")
        run = uuid.uuid4()
        for days, users in ((1, 11), (10, 22), (40, 33)):
            at = NOW - timedelta(days=days)
            conn.execute(
                "INSERT INTO ad_data_quality_aggregations (domains, users, groups, run_id, created_at, updated_at,"
                " session_completeness, local_group_completeness) VALUES (1, %s, 5, %s, %s, %s, 0.5, 0.25)",
                (users, run, at, at))
            conn.execute(
                "INSERT INTO ad_data_quality_stats (domain_sid, users, run_id, created_at, updated_at)"
                " VALUES (%s, %s, %s, %s, %s), ('S-1-5-21-99', 1, %s, %s, %s)",
                (DOMAIN, users, run, at, at, run, at, at))
        conn.execute("INSERT INTO azure_data_quality_stats (tenant_id, users, apps, run_id, created_at, updated_at)"
                     " VALUES (%s, 7, 3, %s, %s, %s)", (TENANT, run, NOW - timedelta(hours=1), NOW))
        conn.execute("INSERT INTO azure_data_quality_aggregations (tenants, users, run_id, created_at, updated_at)"
                     " VALUES (1, 7, %s, %s, %s)", (run, NOW - timedelta(hours=1), NOW))
        yield conn
        conn.execute(f"TRUNCATE {', '.join(TABLES)}")


def test_platform_ad_defaults_to_the_last_30_days_newest_first(admin: httpx.Client, rows: psycopg.Connection) -> None:
    response = admin.get("/api/v2/platform/ad/data-quality-stats")
    assert response.status_code == 200, response.text
    body = response.json()
    assert_matches_spec(response, PLATFORM_PATH)
    assert body["count"] == 2 and body["skip"] == 0 and body["limit"] == 1000
    assert [row["users"] for row in body["data"]] == [11, 22]
    first = body["data"][0]
    assert first["domains"] == 1 and first["groups"] == 5
    assert first["session_completeness"] == 0.5 and first["local_group_completeness"] == 0.25
    assert uuid.UUID(first["run_id"]) and first["deleted_at"] == {"Time": "0001-01-01T00:00:00Z", "Valid": False}
    start, end = datetime.fromisoformat(body["start"]), datetime.fromisoformat(body["end"])
    assert timedelta(days=30) - timedelta(seconds=5) < end - start < timedelta(days=30) + timedelta(seconds=5)


def test_platform_window_sort_and_paging(admin: httpx.Client, rows: psycopg.Connection) -> None:
    start = (NOW - timedelta(days=50)).isoformat()
    response = admin.get("/api/v2/platform/ad/data-quality-stats",
                         params={"start": start, "sort_by": "created_at", "skip": 1, "limit": 1})
    body = response.json()
    assert response.status_code == 200 and body["count"] == 3
    assert [row["users"] for row in body["data"]] == [22]
    # `start` is inclusive and `end` exclusive.
    exact = NOW - timedelta(days=10)
    inclusive = admin.get("/api/v2/platform/ad/data-quality-stats",
                          params={"start": exact.isoformat(), "end": (NOW - timedelta(days=1)).isoformat()}).json()
    assert [row["users"] for row in inclusive["data"]] == [22]


def test_platform_azure(admin: httpx.Client, rows: psycopg.Connection) -> None:
    response = admin.get("/api/v2/platform/azure/data-quality-stats")
    assert response.status_code == 200
    assert_matches_spec(response, PLATFORM_PATH)
    (row,) = response.json()["data"]
    assert row["tenants"] == 1 and row["users"] == 7 and "domains" not in row


def test_ad_domain_rows_only_for_that_domain(admin: httpx.Client, rows: psycopg.Connection) -> None:
    response = admin.get(f"/api/v2/ad-domains/{DOMAIN}/data-quality-stats", params={"sort_by": "-updated_at"})
    assert response.status_code == 200
    assert_matches_spec(response, DOMAIN_PATH)
    body = response.json()
    assert body["count"] == 2 and {row["domain_sid"] for row in body["data"]} == {DOMAIN}
    assert admin.get("/api/v2/ad-domains/S-1-5-21-404/data-quality-stats").json()["data"] == []


def test_azure_tenant_rows(admin: httpx.Client, rows: psycopg.Connection) -> None:
    response = admin.get(f"/api/v2/azure-tenants/{TENANT}/data-quality-stats")
    assert response.status_code == 200
    assert_matches_spec(response, TENANT_PATH)
    (row,) = response.json()["data"]
    assert row["tenantid"] == TENANT and row["apps"] == 3


@pytest.mark.parametrize(("path", "params", "message"), [
    ("/api/v2/platform/aws/data-quality-stats", {}, "invalid platform id specified in url: aws"),
    ("/api/v2/platform/ad/data-quality-stats", {"start": "yesterday"}, "invalid RFC-3339 datetime format: [yesterday]"),
    ("/api/v2/platform/ad/data-quality-stats", {"end": "2024-01-01"}, "invalid RFC-3339 datetime format: [2024-01-01]"),
    (f"/api/v2/ad-domains/{DOMAIN}/data-quality-stats", {"start": "2024-13-01T00:00:00Z"},
     "invalid RFC-3339 datetime format: [2024-13-01T00:00:00Z]"),
    (f"/api/v2/azure-tenants/{TENANT}/data-quality-stats", {"sort_by": "users"},
     "column format does not support sorting: users"),
    ("/api/v2/platform/ad/data-quality-stats", {"sort_by": "-"},
     "the specified column cannot be sorted because it is empty: "),
    ("/api/v2/platform/ad/data-quality-stats", {"skip": "-1"}, "invalid skip: -1"),
    ("/api/v2/platform/ad/data-quality-stats", {"limit": "ten"}, "invalid limit: ten"),
])
def test_validation_errors(admin: httpx.Client, path: str, params: dict[str, str], message: str) -> None:
    response = admin.get(path, params=params)
    assert response.status_code == 400, response.text
    assert response.json()["errors"][0]["message"] == message
    template = PLATFORM_PATH if "/platform/" in path else DOMAIN_PATH if "/ad-domains/" in path else TENANT_PATH
    assert_matches_spec(response, template)


def test_needs_graph_read_permission(live_server: LiveServer, database: Database, client: httpx.Client) -> None:
    assert client.get("/api/v2/completeness").status_code == 401
    with account(live_server, database, "Upload-Only") as uploader:
        for path in ("/api/v2/completeness", "/api/v2/platform/ad/data-quality-stats",
                     f"/api/v2/ad-domains/{DOMAIN}/data-quality-stats",
                     f"/api/v2/azure-tenants/{TENANT}/data-quality-stats"):
            assert uploader.http.get(path).status_code == 403, path
