"""The Audit Log page in Chromium: entries filtered by action, status, actor and date, paginated, exported."""

from __future__ import annotations

import csv
import io
import re

import httpx
from playwright.sync_api import expect

from tests.factories import unique
from tests.ui.browser import UI

PAGE_SIZE = 50


def test_filter_by_action_and_status_page_through_and_export(ui: UI, admin: httpx.Client) -> None:
    prefix = unique("audited")
    for index in range(PAGE_SIZE + 1):
        response = admin.post("/api/v2/tokens", json={"token_name": f"{prefix}-{index}"})
        assert response.status_code == 200, response.text
    listed = admin.get("/api/v2/audit", params={"action": "eq:CreateAuthToken", "status": "eq:success"})
    expected = listed.json()["count"]
    assert expected > PAGE_SIZE

    ui.goto("/ui/audit")
    ui.page.locator("#audit-table tbody tr").first.wait_for()
    ui.page.fill("#audit-action", "CreateAuthToken")
    ui.page.select_option("#audit-status", "success")
    pager = ui.page.locator("#audit-pager")
    expect(pager).to_contain_text(f"1–{PAGE_SIZE} of {expected}")
    actions = ui.page.locator("#audit-table tbody tr td:nth-child(3)")
    expect(actions).to_have_count(PAGE_SIZE)
    assert set(actions.all_inner_texts()) == {"CreateAuthToken"}
    ui.screenshot("audit-log")
    pager.locator("button", has_text="Next").click()
    expect(pager).to_contain_text(f"{PAGE_SIZE + 1}–")

    with ui.page.expect_download() as download:
        ui.page.click("#audit-export")
    rows = list(csv.DictReader(io.StringIO(download.value.path().read_text())))
    assert len(rows) == expected
    assert {row["action"] for row in rows} == {"CreateAuthToken"}
    assert all("/api/v2/tokens" in row["fields"] for row in rows)
    # Other tests on this database create tokens too, as other users: the export names whoever the API names.
    everything = admin.get("/api/v2/audit", params={"action": "eq:CreateAuthToken", "status": "eq:success",
                                                     "limit": str(expected)}).json()["data"]["logs"]
    assert sorted(row["actor_name"] for row in rows) == sorted(entry["actor_name"] for entry in everything)
    assert sum(row["actor_name"] == "admin" for row in rows) >= PAGE_SIZE + 1


def test_filter_by_actor_and_date(ui: UI, admin: httpx.Client) -> None:
    assert admin.post("/api/v2/tokens", json={"token_name": unique("audited")}).status_code == 200
    ui.goto("/ui/audit")
    ui.page.fill("#audit-actor", "admi")
    ui.page.fill("#audit-action", "CreateAuthToken")
    expect(ui.page.locator("#audit-table tbody tr").first).to_contain_text("admin")
    ui.page.fill("#audit-actor", "nobody-by-this-name")
    expect(ui.page.locator("#audit-table .empty-state")).to_contain_text("No audit entry matches")
    ui.page.fill("#audit-actor", "")
    ui.page.fill("#audit-after", "2001-01-01")
    ui.page.fill("#audit-before", "2001-01-31")
    expect(ui.page.locator("#audit-table .empty-state")).to_be_visible()
    newest = admin.get("/api/v2/audit", params={"limit": "1"}).json()["data"]["logs"][0]
    today = re.sub(r"T.*", "", newest["created_at"])
    ui.page.fill("#audit-after", today)
    ui.page.fill("#audit-before", today)
    expect(ui.page.locator("#audit-table tbody tr").first).to_contain_text("CreateAuthToken")
